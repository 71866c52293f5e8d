"""Tile loops whose inner loop indexes an object with the tile's elements.

`for (ii = 0; ii < n; ii += 64) for (i = ii; i < MIN(n, ii + 64); i++) a[i]`
with 64-bit unsigned counters cannot wrap. A wrap needs a last tile `t` with
`t + 64` past the type's maximum. The tile before it, `t - 64`, exists (the
first tile starts at a small number, so it is not the last) and ends at `t`
without wrapping: its inner loop starts at `t - 64`, below both `n` and
`t - 64 + 64`, so it runs and touches `a[i]` with `i >= t - 64`. No object has
2^63 elements, so `t - 64 < 2^63` in a program that stays in bounds, and
`t + 64` is far below 2^64. The inner loop must run in every tile (a statement
of the tile loop's body, no `continue` or `goto` before it), start at the tile
variable, stop only at the tile loop's own bound or at the tile variable plus
at most one step, and touch `x[i + c]` (c small) unconditionally.
"""

from __future__ import annotations

import re

from accls.analysis.narrow_counters import counter_decl
from accls.frontend import AccessKind, Function, Loop, Poly, SourceFile

__all__ = ["tiles_index_an_object", "touches_every_iteration"]

_SMALL = 1 << 32
_SKIPS = re.compile(r"\bcontinue\b|\bgoto\b")
# Before the access, a `break` also leaves the inner loop with no element touched.
_SKIPS_INNER = re.compile(r"\bcontinue\b|\bgoto\b|\bbreak\b")


def _text(source: SourceFile, start: int, end: int) -> str:
    return source.data[start:end].decode("utf-8", errors="replace")


def _upper_polys(inner: Loop) -> list[Poly] | None:
    """Each `i <= poly` the inner loop stops at, None when not all are known."""
    if inner.limits:
        if any(not lim.upper or lim.scale != 1 for lim in inner.limits):
            return None
        return [lim.poly for lim in inner.limits]
    if inner.upper is None:
        return None
    if inner.cond_op == "<":
        return [inner.upper - Poly.const(1)]
    return [inner.upper] if inner.cond_op == "<=" else None


def _starts_each_tile(tile: Loop, inner: Loop, step: int) -> bool:
    """True when the inner loop runs once at least in every tile that does not wrap."""
    var = tile.var or ""
    if inner.lower != Poly.sym(var) or inner.step is None or inner.step <= 0:
        return False
    bounds = _upper_polys(inner)
    if tile.upper is None or not bounds:
        return False
    # The tile loop goes on while `var < n` (`var <= n`): `var <= n - 1` (`n`).
    own = tile.upper - Poly.const(1) if tile.cond_op == "<" else tile.upper
    for poly in bounds:
        rest = poly - Poly.sym(var)
        # `i <= var + c` with 0 <= c < step: `var + c` does not wrap before the
        # last tile, and `var` is within it.
        if poly != own and not (rest.is_constant and 0 <= rest.constant < step):
            return False
    return True


def touches_every_iteration(inner: Loop, source: SourceFile) -> bool:
    """True when every iteration of `inner` touches an element `x[i + c]` (c small).

    Not one under a condition, nor one a `continue`, `goto` or `break` may skip,
    nor one after `i` itself changed.
    """
    var = inner.var or ""
    body = (inner.body.start_byte, inner.body.end_byte)
    moved = [
        r.span.start_byte
        for r in inner.refs
        if r.name == var
        and (r.escapes or r.kind is not AccessKind.READ)
        and body[0] <= r.span.start_byte < body[1]
    ]
    for ref in inner.refs:
        if any(at < ref.span.start_byte for at in moved):
            continue  # `i` changed before: `x[i]` need not be at the tile
        if ref.guarded or not ref.loops or ref.loops[-1] != inner.id:
            continue
        before = _text(source, inner.body.start_byte, ref.span.start_byte)
        if _SKIPS_INNER.search(before):
            continue
        for sub in ref.subscripts:
            poly = sub.poly
            if poly is None or sub.indirect or poly.names() != frozenset({var}):
                continue
            rest = poly - Poly.sym(var)
            if (
                poly.coeff(var) == 1
                and rest.is_constant
                and abs(rest.constant) < _SMALL
            ):
                return True
    return False


def tiles_index_an_object(
    tile: Loop, step: int, fn: Function | None, source: SourceFile
) -> bool:
    """True when an inner loop of every tile touches `x[i + c]` from the tile on."""
    start = tile.lower
    if start is None or not start.is_constant or not 0 <= start.constant < _SMALL:
        return False  # a first tile near the type's end could be the last
    if tile.cond_op not in ("<", "<=") or not 0 < step < _SMALL:
        return False
    tile_decl = counter_decl(tile, fn, source)
    for inner in tile.children:
        if not (tile.perfect or inner.block == tile.body.start_byte):
            continue  # under a condition, or a statement of a nested block
        head = _text(source, tile.body.start_byte, inner.span.start_byte)
        if _SKIPS.search(head):
            continue
        decl = counter_decl(inner, fn, source)
        if decl is None or tile_decl is None or decl.type != tile_decl.type:
            continue  # a narrower variable would not carry the tile's value
        if _starts_each_tile(tile, inner, step) and touches_every_iteration(
            inner, source
        ):
            return True
    return False
