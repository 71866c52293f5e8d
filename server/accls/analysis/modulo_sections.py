"""The elements a `e % m` subscript reaches: `0 .. m-1` when `e` is never negative.

C's `%` takes the sign of the dividend, so a dividend that cannot be negative
gives a value in `[0, |m|)`. A histogram (`h[k % nbins] += w`) or a periodic
neighbour (`u[(i + 1) % n]`) then moves `h[0:nbins]`, `u[0:n]`: a section an
offload can name, where the subscript alone is no polynomial. The modulus must
not change inside the loop (no call, no element, no name the loop writes); a
modulus that is no polynomial (`n/10 + 1`) is kept as one opaque symbol, its
text, which the section renders as written. Sizes are taken to be positive,
as everywhere a section is derived from symbols.
"""

from __future__ import annotations

import re

from accls.frontend import Poly
from accls.frontend.exprs import expression_poly

__all__ = ["dividend", "modulo_range", "plain_names"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_PLAIN = re.compile(r"^[\w\s+\-*/()]+$")
_CALL = re.compile(r"[A-Za-z_]\w*\s*\(")


def _split(text: str) -> tuple[str, str] | None:
    """`e` and `m` of a subscript `e % m` whose `%` is the outermost operator."""
    depth = 0
    at = -1
    for k, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth > 0 or ch.isspace() or ch.isalnum() or ch == "_":
            continue
        elif ch == "%" and at < 0:
            at = k
        elif at >= 0 or ch in "+-%":
            # `a % m * 2`, `a + b % m`: `%` binds tighter, it is not outermost
            return None
    if at < 0:
        return None
    dividend, modulus = text[:at].strip(), text[at + 1 :].strip()
    if not dividend or not modulus:
        return None
    return dividend, modulus


def _invariant(text: str, variant: frozenset[str]) -> bool:
    """True when `text` is arithmetic on names the loop never changes."""
    if not _PLAIN.match(text) or _CALL.search(text):
        return False
    names = {n for n in _NAME.findall(text) if not n[0].isdigit()}
    return bool(names or text.strip()) and not names & variant


def modulo_range(
    text: str, nonnegative: bool, variant: frozenset[str]
) -> tuple[Poly, Poly] | None:
    """Inclusive (low, high) of the subscript `text` = `e % m`, or None.

    `nonnegative`: the caller proved `e >= 0` over the whole nest.
    """
    parts = _split(text)
    if parts is None or not nonnegative:
        return None
    _, modulus = parts
    if not _invariant(modulus, variant):
        return None
    size = expression_poly(modulus)
    if size is None:
        bare = modulus.startswith("(") and modulus.endswith(")")
        inner = modulus[1:-1] if bare else modulus
        size = Poly.sym(f"({inner.strip()})")
    if size.is_constant and size.constant <= 0:
        return None
    return Poly.const(0), size - Poly.const(1)


def dividend(text: str) -> str | None:
    """The `e` of a subscript `e % m`, or None."""
    parts = _split(text)
    return parts[0] if parts is not None else None


def plain_names(names: frozenset[str] | set[str]) -> set[str]:
    """The variables behind `names`: an opaque modulus stands for the names in it."""
    out: set[str] = set()
    for name in names:
        out |= set(_NAME.findall(name)) if name.startswith("(") else {name}
    return out
