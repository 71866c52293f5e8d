"""Which scalars a loop writes are read later before being overwritten.

Later means after the loop in the text, and also again around the back edge of
every statement that repeats the loop: an enclosing `for`, `while` or `do`
runs its condition and the statements before the loop once more, so
`while (changed) { changed = 0; for (...) if (...) changed = 1; }` reads the
loop's `changed` after it as surely as a read below it would.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from dataclasses import replace

from tree_sitter import Node

from accls.frontend.model import AccessKind, Ref
from accls.frontend.recorder import LoopRecord
from accls.frontend.scopes import whole_variable_view

__all__ = ["FORTRAN_REPEATS", "Liveness", "plain_scalar", "repeat_ref_starts"]

_REPEATS = frozenset(
    {"for_statement", "while_statement", "do_statement", "for_range_loop"}
)
FORTRAN_REPEATS = frozenset({"do_loop", "do_label_loop"})
_SCOPE_ENDS = frozenset(
    {"function_definition", "lambda_expression", "subroutine", "function", "program"}
)


def plain_scalar(ref: Ref) -> bool:
    """The reference names the variable itself: no subscript, no `*`."""
    return not ref.subscripts and not ref.deref


def _is_prefix(short: tuple[int, ...], long: tuple[int, ...]) -> bool:
    return long[: len(short)] == short


def repeat_ref_starts(
    node: Node, refs: list[Ref], stop: int, kinds: frozenset[str] = _REPEATS
) -> list[int]:
    """First of `refs[:stop]` in each statement of `kinds` around `node`.

    From there to `stop` is what runs again before the loop at `node`.
    """
    firsts = []
    up = node.parent
    while up is not None and up.type not in _SCOPE_ENDS:
        if up.type in kinds:
            start = up.start_byte
            at = next((i for i in range(stop) if refs[i].span.start_byte >= start), -1)
            if at >= 0:
                firsts.append(at)
        up = up.parent
    return firsts


class Liveness:
    """Which scalars a loop writes are read later before being overwritten."""

    def __init__(self, refs: list[Ref], globals_: frozenset[str]) -> None:
        self.refs = refs
        self.globals = globals_
        self.where: dict[str, list[int]] = defaultdict(list)
        for pos, ref in enumerate(refs):
            if plain_scalar(ref):
                self.where[ref.name].append(pos)
                # `p.x` after the loop reads the struct `p` the loop may assign.
                whole = whole_variable_view(ref)
                if whole is not None:
                    self.where[whole.name].append(pos)

    def _first_use(
        self, name: str, start: int, stop: int, ctx: tuple[int, ...]
    ) -> bool | None:
        """True: an uncovered read first; False: killed first; None: neither."""
        positions = self.where.get(name, [])
        maybe: list[tuple[int, ...]] = []  # writes that may not execute
        for pos in positions[bisect_left(positions, start) :]:
            if pos >= stop:
                return None
            ref = self.refs[pos]
            if ref.name != name:  # a member of `name`: reads it, never kills it
                ref = replace(ref, kind=AccessKind.READ)
            if ref.is_read and not any(_is_prefix(w, ref.context) for w in maybe):
                return True
            if ref.is_write:
                if _is_prefix(ref.context, ctx):
                    return False
                maybe.append(ref.context)
        return None

    def live_after(
        self, rec: LoopRecord, outer: list[LoopRecord], names: set[str]
    ) -> tuple[str, ...]:
        """The names of `names` read after `rec` before being overwritten."""
        live: set[str] = set()
        again: list[int] | None = None  # found once, for the first name it decides
        for name in names:
            if name in self.globals:
                live.add(name)
                continue
            if self._first_use(name, rec.ref_end, len(self.refs), rec.context):
                live.add(name)
                continue
            if again is None:
                again = sorted(
                    {o.ref_start for o in outer}
                    | {*repeat_ref_starts(rec.node, self.refs, rec.ref_start)}
                )
            if any(
                self._first_use(name, start, rec.ref_start, rec.context)
                for start in again
            ):
                live.add(name)
        return tuple(sorted(live))
