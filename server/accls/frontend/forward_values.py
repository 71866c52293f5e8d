"""Values forward substitution carries: polynomials, and remainders (`%`, `&`).

`b = (i * 7) % B; count[b]++` is `count[(i * 7) % B]`, as a compiler sees it: the
dependence test then reasons on the remainder's period (iterations i and i + 8
update one element), where `b` alone is only a scalar that changes in the loop.
A value with `%` or `&` terms has no polynomial; it travels as text, which the
dependence test parses again (`division_poly`), and the subscript it enters has
no polynomial either.
"""

from __future__ import annotations

from dataclasses import dataclass

from accls.frontend.exprs import division_poly
from accls.frontend.model import Subscript
from accls.frontend.poly import Poly

__all__ = ["Value", "division_names", "division_value"]


@dataclass(frozen=True, slots=True)
class Value:
    """A value to substitute: its polynomial (None for `%`, `&` terms) and text."""

    poly: Poly | None
    text: str
    names: frozenset[str]  # the variables the value reads


def division_names(value: Subscript) -> frozenset[str]:
    """The names the operands of a value's `%` and `&` terms read (none if no term)."""
    if value.poly is not None or value.indirect:
        return frozenset()
    found = division_poly(value.text)
    if found is None or any(op == "/" for _, _, op in found[1]):
        return frozenset()  # a quotient's value is left as a name, as before
    poly, terms = found
    names = {
        n for part in (poly, *(p for t in terms for p in t[:2])) for n in part.names()
    }
    return frozenset(n for n in names if not n.startswith("%"))


def division_value(value: Subscript, own: str, allowed: frozenset[str]) -> Value | None:
    """`value` (a definition of `own`) as a text-only value, or None.

    Its operands must read only `allowed` names (integer locals, globals, macros)
    and not `own` itself (`b = b % 4` is the old value, which a use cannot name).
    """
    names = division_names(value)
    if not names or own in names or not names <= allowed:
        return None
    return Value(None, " ".join(value.text.split()), names)
