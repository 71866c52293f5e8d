"""A subscript with invariant quotients (`a[i + n / 2]`) as a polynomial over them.

A loop bound `i < n / 2` is read as one invariant symbol `(n / 2)` (see
`frontend.loops`); a subscript `i + n / 2` is no polynomial to the front end,
so the section that covers it could not be written and the offload was
refused. Each quotient `e / c` whose dividend the loop never changes and whose
divisor is a positive literal is read here as the same kind of symbol: its C
text, which has one value wherever the clause is evaluated. The symbol is
spelled like the loop bound's when the two are the same text, so the bounds
of the section and of the loop compare (`y[(n / 2):(n / 2)]`).
"""

from __future__ import annotations

from collections.abc import Iterable

from accls.frontend import Poly
from accls.frontend.exprs import division_poly

__all__ = ["quotient_subscript"]


def _squeezed(text: str) -> str:
    return "".join(text.split()).strip("()")


def quotient_subscript(
    text: str, variant: frozenset[str], known: Iterable[str] = ()
) -> Poly | None:
    """`text` as a polynomial, each invariant `e / c` (c > 0 literal) one symbol.

    `variant`: names that change inside the loop (no quotient of them is a
    symbol). `known`: symbols already in use (the loop bounds'), reused when
    a quotient is the same text. None when some quotient does not qualify.
    """
    found = division_poly(text)
    if found is None:
        return None
    poly, terms = found
    spelled = {_squeezed(name): name for name in known if "/" in name}
    values: dict[str, Poly] = {}
    for pos, (top, bottom, sign) in enumerate(terms):
        if sign != "/" or not bottom.is_constant or bottom.constant <= 0:
            return None
        if any(n.startswith("%") for n in top.names()) or top.names() & variant:
            return None  # nested in another term, or changing in the loop
        dividend = top.render() if len(top.terms) < 2 else f"({top.render()})"
        atom = f"({dividend} / {bottom.constant})"
        values[f"%{pos}"] = Poly.sym(spelled.get(_squeezed(atom), atom))
    return poly.substitute(values)
