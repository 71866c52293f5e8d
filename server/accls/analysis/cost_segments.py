"""Segment loops: a loop that runs one piece of the data per outer iteration.

`for (box...) { int n = count[box]; for (i = 0; i < n; i++) ... }` walks one box's
atoms; `for (k = row[i]; k < row[i + 1]; k++)` one sparse row; `for (k = r * s;
k < (r + 1) * s; k++)` one fixed-size row of a matrix, and so does `for (i = 0;
i < s; i++) a[r * s + i] = ...`, that row through the subscript. The pieces split the
data between them, so each is small on average (the data over the outer trip count),
and a pragma on the inner loop opens a region, or with a hoisted region waits at a
barrier, for every piece. Such a loop is not worth a pragma of its own: the outer
loop is the level to share out (when it is parallel it gets the pragma instead).

An outer loop with a known, small trip count (12 materials) cuts the data into a
few large pieces: those loops keep their pragma. A bound that is a polynomial in an
outer loop's variable (`i < n - k`, a pivot or triangular loop) is not a segment:
its pieces are large on average, and hoisting the region is the remedy there.

A tile loop, `for (i = it; i < MIN(n, it + tile); i++)` inside `for (it = 0; it < n;
it += tile)`, is such a piece too: at most `tile` iterations per outer iteration. So
is a loop over one item of a collection: `bp = &blocks[list[in]]; for (i...)
bp->array[i] ...` walks the block that the outer iteration picks by its address (a
pointer chosen modulo a few, `grids[t % 2]`, is a buffer swap, not a piece).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from accls.frontend import Loop, Poly, SourceFile, Span
from accls.frontend.exprs import expression_poly

__all__ = ["FEW_PIECES", "segment_reason"]

FEW_PIECES = 256
"""An outer trip count known to be at most this cuts the data into large pieces."""

_WORD = re.compile(r"[A-Za-z_]\w*")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text))


def _indexes_with(text: str, names: set[str]) -> bool:
    """True when `text` reads memory at a subscript that uses one of `names`."""
    return any(_words(inner) & names for inner in re.findall(r"\[([^\[\]]*)\]", text))


def _within(span: Span, outer: Span) -> bool:
    return outer.start_byte <= span.start_byte < outer.end_byte


def _enclosing(source: SourceFile, loop: Loop) -> list[Loop]:
    """The loops of its function around `loop`, innermost first."""
    around = [
        outer
        for outer in source.loops()
        if outer.id != loop.id
        and outer.function == loop.function
        and outer.span.start_byte <= loop.span.start_byte
        and loop.span.end_byte <= outer.span.end_byte
    ]
    return sorted(around, key=lambda o: o.span.start_byte, reverse=True)


def _statement_text(source: SourceFile, start: int) -> str:
    """The text from `start` to the end of its statement (the next `;`)."""
    end = source.data.find(b";", start)
    end = end if end >= 0 else len(source.data)
    return source.data[start:end].decode("utf-8", errors="replace")


def _scalar_writes(
    source: SourceFile, loop: Loop, around: list[Loop], loop_vars: set[str]
) -> list[tuple[Loop, str, str]]:
    """Each scalar set before `loop` in the bodies around it: (owner, name, text)."""
    outermost = around[-1]
    out: list[tuple[Loop, str, str]] = []
    for ref in sorted(outermost.refs, key=lambda r: r.span.start_byte):
        if (
            not ref.is_write
            or ref.subscripts
            or ref.deref
            or ref.name in loop_vars
            or ref.span.start_byte >= loop.span.start_byte
            or any(_within(ref.span, o.header) for o in around)
        ):
            continue
        owner = next(o for o in around if _within(ref.span, o.span))
        out.append((owner, ref.name, _statement_text(source, ref.span.start_byte)))
    return out


def _few_pieces(outer: Loop, values: Mapping[str, Poly]) -> bool:
    """True when the outer loop's trip count is known and small: large pieces."""
    trip = expression_poly(outer.trip_count) if outer.trip_count else None
    if trip is None:
        return False
    trip = trip.substitute(dict(values))
    return trip.is_constant and trip.constant <= FEW_PIECES


def segment_reason(
    source: SourceFile, loop: Loop, values: Mapping[str, Poly] | None = None
) -> str:
    """Why `loop` runs one segment per iteration of a loop around it, or "".

    A segment's bound is read from memory at a subscript that changes with the outer
    iterations (`count[box]`, `row[i + 1]`, or a scalar set so), or both of its
    bounds slide with the outer iterations while its trip count does not use the
    outer variables (`[row * s, (row + 1) * s)`), or it walks one tile (`i <
    MIN(n, it + tile)` from `it`). Not when that outer loop's trip
    count is known and small (`values`: the sizes the file fixes): the data is cut
    into a few large pieces then.
    """
    found = (
        _segment(source, loop)
        or _row_of_outer(source, loop)
        or _item_of_outer(source, loop)
    )
    if found is None or _few_pieces(found[0], values or {}):
        return ""
    return _reason(*found)


def _segment(source: SourceFile, loop: Loop) -> tuple[Loop, str] | None:
    """The outer loop a segment's bound moves with, and how; None if not one."""
    bounds = f"{loop.lower_text} {loop.upper_text}"
    around = _enclosing(source, loop)
    if not around:
        return None
    loop_vars = {o.var for o in around if o.var}
    for outer in around:
        for side in (loop.lower_text, loop.upper_text):
            if outer.var and _indexes_with(side, {outer.var}):
                return outer, f"`{side}` is read"
    loaded: dict[str, Loop] = {}  # read from memory at a moving subscript
    moving: dict[str, Loop] = {}  # computed from the outer iterations
    for owner, name, text in _scalar_writes(source, loop, around, loop_vars):
        if _indexes_with(text, loop_vars | set(loaded) | set(moving)):
            loaded[name] = owner
        elif (_words(text) - {name}) & (loop_vars | set(moving) | set(loaded)):
            moving[name] = owner
    names = _words(bounds)
    for name in sorted(names & set(loaded)):
        return loaded[name], f"`{name}` is read"
    slides = loop_vars | set(moving)
    lower, upper = _words(loop.lower_text), _words(loop.upper_text)
    trip = _words(loop.trip_count or "")
    if loop.trip_count and lower & slides and upper & slides and not trip & loop_vars:
        first = sorted(lower & slides)[0]
        owner = moving.get(first) or next(o for o in around if o.var == first)
        return owner, f"`{loop.lower_text}` slides"
    return _tile(loop, around, slides, moving)


_ADDRESS = re.compile(r"=\s*&\s*[A-Za-z_][\w.\->]*\s*\[")


def _item_of_outer(source: SourceFile, loop: Loop) -> tuple[Loop, str] | None:
    """The outer loop that picks, by its address, the item `loop` walks.

    `bp = &blocks[sorted_list[in].n]` in the outer body, then `bp->array[v][i]`
    in `loop` at its own variable: each outer iteration owns one item.
    """
    around = _enclosing(source, loop)
    if not around or loop.var is None:
        return None
    loop_vars = {o.var for o in around if o.var}
    picked: dict[str, tuple[Loop, str]] = {}
    for owner, name, text in _scalar_writes(source, loop, around, loop_vars):
        subs = re.findall(r"\[([^\[\]]*)\]", text)
        moving = [s for s in subs if _words(s) & loop_vars]
        if _ADDRESS.search(text) and moving and not re.search(r"[%&|^]", "".join(subs)):
            picked[name] = (owner, text.split("=", 1)[1].strip())
        else:
            picked.pop(name, None)  # set otherwise later: not the item's address
    for ref in loop.refs:
        base = re.split(r"->|\.", ref.name, maxsplit=1)[0]
        walks = any(loop.var in _words(s.text) for s in ref.subscripts)
        if base in picked and walks:
            owner, address = picked[base]
            return owner, f"item:`{base} = {address}`"
    return None


def _tile(
    loop: Loop, around: list[Loop], slides: set[str], moving: Mapping[str, Loop]
) -> tuple[Loop, str] | None:
    """The tile loop around `loop` when `loop` walks one tile of it, or None.

    `for (i = it; i < MIN(n, it + tile); i++)`: the lower bound slides with an
    outer loop and one upper limit lies a fixed distance past it (`tile`, free of
    the loops' variables), so each outer iteration gets at most that many.
    """
    lower = loop.lower
    if lower is None or loop.upper is not None or not lower.names() & slides:
        return None
    for limit in loop.limits:
        if not limit.upper or limit.scale != 1:
            continue
        width = limit.poly - lower
        if width.is_constant or width.names() & (slides | {loop.var}):
            continue
        first = sorted(lower.names() & slides)[0]
        owner = moving.get(first) or next(o for o in around if o.var == first)
        return owner, f"tile:`{(width + Poly.const(1)).render()}`"
    return None


def _row_step(poly: Poly, outer: str, inner: str) -> Poly | None:
    """How far `poly` moves per step of `outer`, when it is affine in `inner`."""
    one, zero = Poly.const(1), Poly.const(0)
    across = poly.substitute({inner: one}) - poly.substitute({inner: zero})
    if not across.is_constant or across.constant == 0:
        return None
    step = poly.substitute({outer: one}) - poly.substitute({outer: zero})
    return step if inner not in step.names() and outer not in step.names() else None


def _row_of_outer(source: SourceFile, loop: Loop) -> tuple[Loop, str] | None:
    """The outer loop whose variable picks the row `loop` walks.

    `a[r][i]` (the outer variable in an earlier subscript than the loop's), or
    `a[r * n + i]` with `i < n`: the subscript moves by the loop's own trip count
    (times its step in the loop variable) per outer iteration. Each outer iteration
    owns one row of the array, and `loop` walks it.
    """
    if loop.var is None or not loop.trip_count:
        return None
    trip = expression_poly(loop.trip_count)
    if trip is None or loop.var in trip.names():
        return None
    for outer in _enclosing(source, loop):
        if outer.var is None or outer.var in trip.names():
            continue
        for ref in loop.refs:
            subs = ref.subscripts
            if any(s.indirect for s in subs):
                continue
            polys = [s.poly for s in subs]
            text = f"`{ref.render()}`"
            if _picks_row(polys, outer.var, loop.var):
                return outer, f"row:{text} (`{outer.var}` picks it)"
            if len(polys) != 1 or polys[0] is None or trip.is_constant:
                continue
            step = _row_step(polys[0], outer.var, loop.var)
            per_inner = polys[0].coeff(loop.var)
            if step is not None and per_inner and step == trip.scale(per_inner):
                return outer, f"row:{text} (`{trip.render()}` long)"
    return None


def _picks_row(polys: list[Poly | None], outer: str, inner: str) -> bool:
    """True when a subscript in `outer` alone precedes one that walks `inner`."""
    seen_outer = False
    for poly in polys:
        if poly is None:
            return False
        names = poly.names()
        if inner in names:
            return seen_outer and poly.coeff(inner) != 0
        if outer in names and poly.coeff(outer) != 0:
            seen_outer = True
    return False


def _reason(outer: Loop, what: str) -> str:
    if what.startswith("tile:"):
        return (
            f"tile loop: it walks one tile of at most {what[5:]} iterations per "
            f"iteration of the loop at line {outer.line}; a region per tile costs "
            "more than it shares out"
        )
    if what.startswith("item:"):
        return (
            f"item loop: it walks the item {what[5:]} of each iteration of the "
            f"loop at line {outer.line}; a region per item costs more than it "
            "shares out"
        )
    if what.startswith("row:"):
        return (
            f"segment loop: it walks one row of {what[4:]} per iteration of the "
            f"loop at line {outer.line}; a region per row costs more than it "
            "shares out"
        )
    return (
        f"segment loop: its bound {what} per iteration of the loop at line "
        f"{outer.line}; a region per piece costs more than it shares out"
    )
