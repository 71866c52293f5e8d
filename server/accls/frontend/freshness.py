"""Where the values of a function's local pointers come from and where they go.

`double *p = malloc(..)` overlaps no other object, but `q = p + 1` makes `q`
reach into `p`'s block, and `s->v = p` or `init(p)` hands the block to code that
may keep it. A table `double **t` whose every row is stored from an allocator
(`t[i] = malloc(..)`) holds rows that overlap nothing else, under the same
conditions. This module records, per local pointer or table, whether it is
fresh, which locals its value may be copied from, whether its address is taken,
and whether its value (or a row's) leaves the function's locals.
"""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from accls.frontend.allocator_calls import DEVICE_ALLOCATORS, allocator, called_name
from accls.frontend.cpp_buffers import buffer_of, constructs_buffer
from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.model import FROM_CALL, Var
from accls.frontend.pointer_flow import (
    argument_position,
    call_name_of,
    deref_base,
    flows_to,
    is_null,
    memalign_target,
    outer_subscript,
    row_depth,
    subscript_base,
)
from accls.frontend.pointer_slots import Slot, slot_fills
from accls.frontend.row_handoffs import Handoffs, rows_kept_until
from accls.frontend.row_slots import may_repoint

__all__ = ["PointerFlow", "fresh_rows_refuted", "mark_fresh"]

_KEEPING = frozenset({"free", "sizeof", "assert"})  # calls that never keep a pointer


class PointerFlow(Handoffs):
    """What one walk over a function body learns about its local pointers."""

    def __init__(
        self,
        locals_: list[Var],
        params: frozenset[str],
        wrappers: frozenset[str] = frozenset(),
        slots: frozenset[Slot] = frozenset(),
        outer: frozenset[str] = frozenset(),
        borrows: frozenset[tuple[str, int]] = frozenset(),
        makers: frozenset[str] = frozenset(),
        steady: frozenset[tuple[str, int]] = frozenset(),
    ) -> None:
        self.wrappers = wrappers
        # Wrappers returning a fresh table of fresh rows (`alloc2d`): row_tables.
        self.makers = makers
        self.steady = steady  # calls that leave a table's rows as they are
        self.made: set[str] = set()  # tables set from them
        self.passed: set[str] = set()  # names handed to a call, borrowers too
        # Calls that never keep the pointer passed at a position (`borrowers`),
        # unless a local or parameter of the name hides the function.
        self.borrows = borrows
        self.shadow = params | {v.name for v in locals_}
        # The file's global arrays and pointers a local's value may come from
        # (`double *p = &g[0]`), unless a local or parameter hides the name.
        self.outer = outer - params - {v.name for v in locals_}
        self.slots = slots
        self.pointers = {v.name for v in locals_ if v.pointers and not v.dims}
        self.tables = {v.name: d for v in locals_ if (d := row_depth(v)) is not None}
        self.tracked = (self.pointers | set(self.tables)) - params
        # Pointers to rows (`double (*q)[3] = f`): only where their values come from.
        self.row_pointers = {
            v.name for v in locals_ if v.dims and v.shape.startswith("*")
        } - params
        self.params = params  # a local's value may come from them too (`p = b + 1`)
        self.fresh = {v.name: v.device for v in locals_ if v.fresh}
        self.owners = {v.name for v in locals_ if v.fresh and not v.device}
        self.not_fresh: set[str] = set()
        self.bad_rows: set[str] = set()
        self.row_stores: set[str] = set()
        self.sources: dict[str, set[str]] = {}
        self.address: set[str] = set()
        self.leaves: set[str] = set()
        self.kept: set[str] = set()  # leaves other than by `return`
        # Tables whose row slots (`t`, `&t[k]`) reach code that may re-point a row.
        self.exposed: set[str] = set()
        self.row_copies: set[str] = set()  # tables a local copies a row of
        self.table_copies: set[str] = set()  # and those it copies otherwise
        self.handed_at = {}  # where each table was handed on (`row_handoffs`)
        self.returns: list[Node | None] = []  # the values of the return statements

    def _allocator(self, value: Node | None) -> str | None:
        """The allocator or allocator wrapper `value` calls, if it is one."""
        if value is not None and strip_parens(value).type == "new_expression":
            return "operator new"  # C++ `new T[n]`: a fresh block, like malloc
        found = allocator(value)
        if found is not None or value is None:
            return found
        name = called_name(value)
        return name if name in self.wrappers else None

    def _foreign(self, value: Node | None) -> bool:
        """A wrapper's table whose rows it may have set to anything (`t[1] = t[0]`)."""
        source = self._allocator(value)
        return allocator(value) is None and source not in self.makers | {"operator new"}

    def assign(self, target: Node, value: Node | None) -> None:
        """`target = value` (or a declaration's initializer)."""
        source = self._allocator(value)
        if deref_base(target) in self.tables:
            self.bad_rows.add(deref_base(target))  # `*t = p`: the first row re-pointed
        name, depth = subscript_base(strip_parens(target))
        if target.type == "identifier" and name in self.pointers and is_null(value):
            return  # a null pointer points into no object
        if target.type == "identifier" and name in self.pointers:
            if self.fresh.get(name) is False and constructs_buffer(value):
                return  # `std::vector<double> v(n)` builds a buffer of its own
            if name in self.tables and (source is None or self._foreign(value)):
                self.bad_rows.add(name)  # `t = q`: another table's rows, unseen
            elif name in self.tables and source in self.makers:
                self.row_stores.add(name)
                self.made.add(name)
            device = source in DEVICE_ALLOCATORS
            if source is None or self.fresh.get(name, device) != device:
                self.not_fresh.add(name)
            else:
                self.fresh[name] = device
            if source is None and value is not None:
                self.sources.setdefault(name, set()).update(self._sources(value))
        elif target.type == "identifier" and name in self.row_pointers:
            if source is None and value is not None:
                self.sources.setdefault(name, set()).update(self._sources(value))
        elif name in self.tables and depth == self.tables[name]:
            if source is None or source in DEVICE_ALLOCATORS:
                self.bad_rows.add(name)
            else:
                self.row_stores.add(name)

    def _sources(self, value: Node) -> set[str]:
        found: set[str] = set()
        stack = [value]
        while stack:
            node = stack.pop()
            if node.type == "call_expression" and self._allocator(node) is None:
                found.add(buffer_of(node, self.owners) or FROM_CALL)
            elif node.type == "identifier" and (
                node_text(node) in self.tracked
                or node_text(node) in self.params
                or node_text(node) in self.outer
            ):
                found.add(node_text(node))
            stack.extend(node.named_children)
        return found

    def use(self, node: Node) -> None:
        """Record where an occurrence of a tracked name sends its value."""
        name = node_text(node)
        outer, depth = outer_subscript(node)
        rows = self.tables.get(name)
        limit = rows if rows is not None else 0
        parent = outer.parent
        address = (
            parent is not None
            and parent.type == "pointer_expression"
            and node_text(parent.child_by_field_name("operator") or parent) == "&"
        )
        if depth > limit and not (depth == limit + 1 and address):
            return  # an element, not a pointer value
        receiver = flows_to(outer)
        if receiver is None:
            return
        # `t` or `&t[k]`: a value through which a row slot may be stored.
        slots = rows is not None and (depth < limit or (depth == limit and address))
        if receiver.type == "return_statement":
            self.leaves.add(name)
        elif receiver.type == "pointer_expression":
            self._address(receiver, name)
            self.hand(self.exposed, name, node, slots)
        elif receiver.type == "argument_list":
            called = call_name_of(receiver)
            position = argument_position(receiver, outer)
            if depth == 0 and rows == 1 and self.filler(called, position):
                self.row_stores.add(name)  # `fill(t, n)`: a fresh block per slot
                return
            repoints = may_repoint(called, position, self.shadow, self.steady)
            if repoints and (depth == 0 or slots):
                self.hand(self.passed, name, node)  # the callee may re-point rows
            if called not in _KEEPING and (
                called in self.shadow or (called, position) not in self.borrows
            ):
                self._leave(name)
        elif receiver.type in ("init_declarator", "assignment_expression"):
            field = "declarator" if receiver.type == "init_declarator" else "left"
            target = receiver.child_by_field_name(field)
            while target is not None and target.type in (
                "pointer_declarator",
                "parenthesized_expression",
            ):
                target = target.child_by_field_name("declarator") or (
                    target.named_children[0] if target.named_child_count else None
                )
            local = (
                target is not None
                and target.type == "identifier"
                and node_text(target) in self.tracked
            )
            if local and rows is not None and target is not None:
                # `double *spare = t[3]`: a row copied, no slot through it.
                row = depth == rows and node_text(target) not in self.tables
                (self.row_copies if row else self.table_copies).add(name)
            if not local:
                self._leave(name)  # stored into memory: a field, a row, a global
                self.hand(self.exposed, name, node, slots)
        else:
            self._leave(name)
            self.hand(self.exposed, name, node, slots)  # `{t}`: a field holds the table

    def _leave(self, name: str) -> None:
        self.leaves.add(name)
        self.kept.add(name)

    def _address(self, taken: Node, name: str) -> None:
        """`&p`: the pointer may change elsewhere, unless `posix_memalign` fills it.

        Nor when the callee only frees `*p`, nulls it or fills it afresh
        (`pointer_slots`).
        """
        call = flows_to(taken)
        holder = call.parent if call is not None else None
        fills = slot_fills(taken, call, self.slots) if call is not None else None
        if fills is not None and name in self.pointers:
            if fills:
                self._filled(name)
            return
        if (
            holder is not None
            and holder.type == "call_expression"
            and (target := memalign_target(holder)) is not None
            and node_text(target) == name
        ):
            return  # the block it stores is fresh (see `walk`)
        self.address.add(name)
        self._leave(name)

    def _memalign(self, call: Node) -> None:
        """`posix_memalign(&p, ...)`: `p` gets a fresh host block (or stays unset)."""
        target = memalign_target(call)
        if target is not None and target.type == "identifier":
            self._filled(node_text(target))

    def _filled(self, name: str) -> None:
        """A fresh host block is stored in `name` through its address."""
        if name in self.pointers:
            if self.fresh.get(name, False):
                self.not_fresh.add(name)  # was a device block
            self.fresh.setdefault(name, False)

    def walk(self, body: Node) -> None:
        """Read every assignment and every use of a tracked name in `body`."""
        stack = [body]
        while stack:
            node = stack.pop()
            if node.named_child_count:
                stack.extend(node.named_children)
            if node.type == "return_statement":
                self.returns.append(
                    node.named_children[0] if node.named_child_count else None
                )
            elif node.type == "call_expression":
                self._memalign(node)
            if node.type == "assignment_expression":
                left = node.child_by_field_name("left")
                if left is not None:
                    self.assign(strip_parens(left), node.child_by_field_name("right"))
            elif node.type == "init_declarator":
                declarator = node.child_by_field_name("declarator")
                while declarator is not None and declarator.type in (
                    "pointer_declarator",
                    "parenthesized_declarator",
                    "array_declarator",  # `(*q)[3]`: a pointer to rows
                ):
                    inner = declarator.child_by_field_name("declarator")
                    if inner is None and declarator.named_child_count:
                        inner = declarator.named_children[0]
                    declarator = inner
                value = node.child_by_field_name("value")
                if (
                    declarator is not None
                    and declarator.type == "identifier"
                    and node_text(declarator) in self.pointers | self.row_pointers
                    and value is not None
                ):
                    self.assign(declarator, value)
            elif node.type == "identifier" and node_text(node) in self.tracked:
                self.use(node)


def fresh_rows_refuted(flow: PointerFlow) -> set[str]:
    """Tables whose rows other code may re-point or share, in the whole function.

    Copied to another local (`q = t; q[1] = q[0]`; a row copied, `p = t[3]`,
    re-points no slot), handed on (`row_handoffs`:
    `hook(t)`, `memcpy(&t[1], &t[0], ..)`, `s.rows = t`), or a row-table
    wrapper's table kept or its address taken.
    """
    copied = set().union(*flow.sources.values()) & set(flow.tables)
    copied -= flow.row_copies - flow.table_copies  # a copied row stores no slot
    made = flow.passed | flow.kept | flow.address
    handed = (flow.passed | flow.exposed) & set(flow.tables)
    return copied | handed | {n for n in flow.made if n in made}


def mark_fresh(
    body: Node,
    locals_: list[Var],
    params: frozenset[str],
    wrappers: frozenset[str] = frozenset(),
    slots: frozenset[Slot] = frozenset(),
    outer: frozenset[str] = frozenset(),
    borrows: frozenset[tuple[str, int]] = frozenset(),
    makers: frozenset[str] = frozenset(),
    steady: frozenset[tuple[str, int]] = frozenset(),
    fillers: frozenset[tuple[str, int]] = frozenset(),
) -> list[Var]:
    """`locals_` with what the body shows about their pointer values.

    `wrappers` names the program's functions that return fresh blocks, `slots`
    those that only free or fill a pointer whose address they get; `outer`,
    the global arrays and pointers whose names a local's sources may hold;
    `borrows`, the calls that never keep a pointer passed at a position;
    `makers`, the wrappers that return a table of fresh rows; `steady`, the
    calls that leave the rows of a table they get as they are; `fillers`, the
    calls that store a fresh block in each slot they set (`row_fillers`).
    """
    flow = PointerFlow(locals_, params, wrappers, slots, outer, borrows, makers, steady)
    flow.fillers = fillers
    if not flow.tracked and not flow.row_pointers:
        return list(locals_)  # no local pointer: the walk would change nothing
    flow.walk(body)
    fresh = {n: d for n, d in flow.fresh.items() if n not in flow.not_fresh}
    rows = flow.row_stores - flow.bad_rows - fresh_rows_refuted(flow)
    until = rows_kept_until(flow, body, {v.name for v in locals_ if v.static})
    out: list[Var] = []
    for var in locals_:
        if var.name in flow.row_pointers and var.name not in flow.tracked:
            out.append(
                replace(var, sources=tuple(sorted(flow.sources.get(var.name, ()))))
            )
            continue
        if var.name not in flow.tracked:
            out.append(var)
            continue
        out.append(
            replace(
                var,
                fresh=var.name in fresh,
                device=fresh.get(var.name, False),
                # A C++ container of containers owns its rows (cpp_decls.cpp_var).
                fresh_rows=var.fresh_rows or var.name in rows,
                rows_kept_until=until.get(var.name, -1),
                sources=tuple(sorted(flow.sources.get(var.name, ()))),
                address_taken=var.name in flow.address,
                leaves=var.name in flow.leaves,
            )
        )
    return out
