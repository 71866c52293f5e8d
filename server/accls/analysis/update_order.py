"""Whether the guarded updates of one variable give the same value in any order.

An `atomic` or `critical` update keeps iterations from racing, not from running
in another order. Updates of one operator commute (`x += e`, `x <<= e`); a store
of a value computed from the variable itself (`x = e - x`, `x = e << x`),
updates of two operators (`+=` then `*=`, `<<=` then `>>=`) and remainder
updates (`x %= e`) do not; nor do left shifts of a signed or narrow type (an
order may overflow: undefined) or of a type not known (`integer_kinds`).
"""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis.integer_kinds import shift_commutes
from accls.frontend import AccessKind, Ref

__all__ = ["order_free"]


def _element(ref: Ref) -> tuple[str, int, tuple[str, ...]]:
    return ref.name, ref.span.line, tuple(s.text for s in ref.subscripts)


def _rewrites_itself(store: Ref, refs: Sequence[Ref]) -> bool:
    """A plain store whose right-hand side reads the element it stores.

    The read follows the stored element on its line (`x = e(x)`); a read before
    it is a test (`if (v > m) m = v;`, a maximum), which needs no order.
    """
    here = _element(store)
    return any(
        r.kind is AccessKind.READ
        and _element(r) == here
        and r.span.start_byte >= store.span.end_byte
        for r in refs
    )


# `(x % a) % b` is not `(x % b) % a`: a remainder update needs its order.
_ORDERED = frozenset({"%="})


def _operator(ref: Ref) -> str:
    """The update's operator: its reduction's, else the compound assignment's."""
    return str(ref.reduction) if ref.reduction is not None else ref.update_op


def order_free(refs: Sequence[Ref], kind: str = "") -> bool:
    """No `x = e(x)` store, and every update of one operator that commutes.

    A store the front end reads as a reduction (`x = x + e`) is an update;
    `<<=` and `>>=` on one variable are two operators. `kind` is the variable's
    integer kind (`integer_kinds.signedness`): left shifts commute only for an
    unsigned one of `int`'s rank or wider; "" (not known) keeps their order.
    """
    updates = [
        r
        for r in refs
        if r.kind is AccessKind.UPDATE
        or (r.kind is AccessKind.WRITE and r.reduction is not None)
    ]
    stores = [r for r in refs if r.kind is AccessKind.WRITE and r.reduction is None]
    if any(_rewrites_itself(store, refs) for store in stores):
        return False
    operators = {_operator(r) for r in updates}
    if "<<=" in operators and not shift_commutes("<<=", kind):
        return False
    return len(operators) <= 1 and not operators & _ORDERED
