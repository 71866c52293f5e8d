"""From where on a local table's row slots may have been re-pointed.

`memcpy(&t[3], &t[2], ..)` or `hook(t)` may leave two slots on one row, but
only the code that can run after that call sees it: a loop that ends before
the call, outside every loop around the call, reads the rows as they were
stored (`t[k] = malloc(..)`), each a block of its own. The walk of
`freshness.PointerFlow` notes each place a table is handed on (`Handoffs`);
`rows_kept_until` turns them into the first byte from which a re-pointed slot
may be read. A `goto` (a jump back) or `setjmp` in the function, or a `static`
table (its slots outlive the call), keeps the whole function refuted.
"""

from __future__ import annotations

from collections.abc import Set

from tree_sitter import Node

from accls.frontend.exprs import node_text

__all__ = ["Handoffs", "rows_kept_until"]

_LOOPS = frozenset(
    {"for_statement", "for_range_loop", "while_statement", "do_statement"}
)
# Calls that jump back to an earlier point of the function, or arrive there.
_JUMPS = frozenset({"setjmp", "_setjmp", "sigsetjmp", "__builtin_setjmp"})


class Handoffs:
    """Where each table's row slots reached code that may re-point one.

    A mixin of `PointerFlow`, whose walk sets the other attributes.
    """

    handed_at: dict[str, list[int]]
    passed: set[str]
    exposed: set[str]
    row_stores: set[str]
    bad_rows: set[str]
    made: set[str]
    sources: dict[str, set[str]]
    shadow: Set[str]
    fillers: frozenset[tuple[str, int]] = frozenset()

    def filler(self, called: str | None, position: int) -> bool:
        """Whether the call stores a fresh block in each slot of the table it gets.

        A filler's stores are fresh rows, not a hand-off; a local or parameter
        of the name is a function pointer, which may call anything.
        """
        return called not in self.shadow and (called, position) in self.fillers

    def hand(self, into: set[str], name: str, node: Node, when: bool = True) -> None:
        """Add `name` to `into` (passed or exposed) if `when`, noting where it acts."""
        if when:
            into.add(name)
            self.handed_at.setdefault(name, []).append(_reach(node))


def _reach(node: Node) -> int:
    """The first byte from which code run after `node` may run again.

    The start of the outermost loop around it (a later iteration runs after it),
    else the node itself.
    """
    found = node.start_byte
    up = node.parent
    while up is not None and up.type != "function_definition":
        if up.type in _LOOPS:
            found = up.start_byte
        up = up.parent
    return found


def _jumps_back(body: Node) -> bool:
    """Whether a `goto` or a `setjmp` may run code of `body` again out of order."""
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "goto_statement":
            return True
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and node_text(callee) in _JUMPS:
                return True
        stack.extend(node.named_children)
    return False


def rows_kept_until(flow: Handoffs, body: Node, static: set[str]) -> dict[str, int]:
    """Each table refuted only by being handed on, and from where that may act.

    Its every row is stored from an allocator, it is copied to no other local,
    and it is no wrapper's table; `static` names the locals with `static`
    storage (handed on in an earlier call, their slots may be re-pointed).
    """
    copied = set().union(*flow.sources.values())
    tables = flow.row_stores - flow.bad_rows - copied - flow.made - static
    kept = {
        name: min(flow.handed_at[name])
        for name in tables & (flow.passed | flow.exposed)
        if flow.handed_at.get(name)
    }
    return kept if kept and not _jumps_back(body) else {}
