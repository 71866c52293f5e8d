"""Rows padded past a symbol: `i + j*(n + 2)` read as rows of `n + 2`.

Ghost cells make a row `n + 2*halo` wide, so a linearized subscript multiplies
the row by a sum, not by a symbol. Dividing by the symbol alone leaves `i + 2*j`,
which leaves `[0, n)`; dividing by the whole extent leaves `i`. The extent is
read off the subscript: the quotient `q` holds the terms of `n` divided by `n`,
and the pad is what multiplies a loop variable of `q` elsewhere. Any candidate
is only a guess until the caller proves `0 <= rest < extent`: then
`q*(n + d) + rest` is a division with remainder, and equal subscripts have equal
quotients and equal rests.
"""

from __future__ import annotations

from collections.abc import Sequence

from accls.frontend import Poly

__all__ = ["divide_extent", "padded_extents"]


def _symbol(key: str) -> bool:
    """Whether a key is a symbol fixed in the nest (not an iteration variable)."""
    return key.startswith("p:")


def _quotient(poly: Poly, name: str) -> Poly:
    """The terms of `poly` that hold `name`, with one `name` taken out."""
    out = Poly()
    for mono, coeff in poly.terms:
        if name in mono:
            pos = mono.index(name)
            out = out + Poly((((*mono[:pos], *mono[pos + 1 :]), coeff),))
    return out


def divide_extent(poly: Poly, name: str, extent: Poly) -> tuple[Poly, Poly]:
    """(quotient, rest) with `poly == quotient*extent + rest`, exactly."""
    quotient = _quotient(poly, name)
    return quotient, poly - quotient * extent


def _pad(poly: Poly, name: str, var: str, step: int) -> Poly | None:
    """What pads the row: the terms of `var` without `name`, over `step * var`."""
    terms: list[tuple[tuple[str, ...], int]] = []
    for mono, coeff in poly.terms:
        if var not in mono or name in mono:
            continue
        if coeff % step:
            return None
        pos = mono.index(var)
        terms.append(((*mono[:pos], *mono[pos + 1 :]), coeff // step))
    pad = Poly()
    for mono, coeff in terms:
        pad = pad + Poly(((mono, coeff),))
    if not pad.terms or not all(_symbol(k) for k in pad.names()):
        return None
    return pad if pad.is_affine else None


def padded_extents(polys: Sequence[Poly]) -> list[tuple[str, Poly]]:
    """Candidate (symbol, extent) pairs `n` and `n + d`, for subscripts `polys`."""
    out: list[tuple[str, Poly]] = []
    for poly in polys:
        names = sorted(
            {k for mono, _ in poly.terms if len(mono) > 1 for k in mono if _symbol(k)}
        )
        for name in names:
            for mono, coeff in _quotient(poly, name).terms:
                if len(mono) != 1 or _symbol(mono[0]):
                    continue  # a loop variable alone in the quotient names the row
                pad = _pad(poly, name, mono[0], coeff)
                if pad is None:
                    continue
                found = (name, Poly.sym(name) + pad)
                if found not in out:
                    out.append(found)
    return out
