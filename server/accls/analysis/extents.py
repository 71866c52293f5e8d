"""Array subscripts that leave their declared extent: `x[i][j - 1]` at `j == 0`.

The dependence test compares subscripts dimension by dimension, which is sound
only while each inner subscript stays within its extent. In C an index past
either end of a row lands in a neighbouring row, so such an access must not be
analysed as if it stayed in its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from accls.analysis.access_paths import declaration, member_var
from accls.analysis.delinearize import Frame, Model, bounded_level, domain_rows
from accls.analysis.model import Escape
from accls.analysis.nest_views import NestViews, View, nest_views
from accls.analysis.polyhedra import Row, build, forced, is_empty, row
from accls.frontend import Function, Loop, Poly, SourceFile, TypeTable, Var
from accls.frontend.exprs import expression_poly

_STEPS = re.compile(r"->|\.")
_SELECTORS = re.compile(r"\[[^\[\]]*\]")
# `b[l].lo`: a member of an array's element. Its first subscript indexes a row
# of the elements' storage (the dependence test reads it as `b.lo[l][k]`), so
# past either end of `lo` lies the next or the previous element.
_ELEMENT_MEMBER = re.compile(r"\]\s*(?:\.|->)\s*[A-Za-z_]\w*$")

__all__ = [
    "declared_extents",
    "escape_how",
    "escape_reach",
    "escape_reason",
    "escapes_in",
    "extent_escapes",
]


def _declaration(
    name: str, loops: Sequence[Loop], fn: Function | None, globals_: Sequence[Var]
) -> Var | None:
    for loop in reversed(loops):
        found = next((v for v in loop.locals if v.name == name), None)
        if found is not None:
            return found
    found = fn.lookup(name) if fn is not None else None
    return found or next((g for g in globals_ if g.name == name), None)


def _extents(var: Var | None, rank: int, types: TypeTable) -> tuple[str | None, ...]:
    """The declared extent of each subscript position; None where unknown.

    A pointer to rows (`double (*a)[M]`, a VLA's `double (*a)[m]`, `row *a` of
    `typedef double row[M]`) has no extent at its first level but its rows have
    theirs; a typedef's array levels (`grid g` of `typedef double grid[N][M]`)
    add its extents.
    """
    unknown: tuple[str | None, ...] = (None,) * rank
    if var is None or var.unknown_shape:
        return unknown
    more = types.dims_of(var.type) if types.levels_of(var.type) else ()
    if more is None:
        return unknown
    dims = (*var.dims, *more)
    levels = var.shape + "[" * len(more)
    if levels == "[" * rank and len(dims) == rank:
        return dims
    if levels == "*" + "[" * (rank - 1) and len(dims) == rank - 1 and rank > 1:
        return (None, *dims)
    return unknown  # pointer rows have no extent we can see


def declared_extents(
    name: str, rank: int, fn: Function | None, source: SourceFile
) -> tuple[str | None, ...]:
    """The declared extent texts of `name` indexed with `rank` subscripts."""
    var = _declaration(name, (), fn, source.globals)
    if var is None or var.name != name:
        return (None,) * rank
    return _extents(var, rank, source.types)


def _field_by_type(name: str, fn: Function | None, source: SourceFile) -> Var | None:
    """The field a path like `gs[k].a` or `p->s[m].a` ends at, by types alone.

    Its own extents do not depend on the selectors on the way.
    """
    found = declaration(name, fn, source.globals)
    path, previous = name, ""
    while path != previous:  # `gs[idx[k]].a`: innermost selectors first
        path, previous = _SELECTORS.sub("", path), path
    parts = _STEPS.split(path)
    for field_name in parts[1:]:
        if found is None:
            return None
        fields = source.types.fields_of(found.type)
        found = fields.get(field_name.strip()) if fields is not None else None
    return found if len(parts) > 1 else None


def _linear(poly: Poly) -> dict[str, int] | None:
    """Coefficients by key, the constant under "" ; None when not affine."""
    if not poly.is_affine:
        return None
    return {(mono[0] if mono else ""): coeff for mono, coeff in poly.terms}


def _key_poly(text: str, frame: Frame) -> Poly | None:
    """The extent over symbol keys; None when it is not an invariant polynomial."""
    poly = expression_poly(text)
    if poly is None:
        return None
    loop_vars = {loop.var for loop in frame.loops}
    if poly.names() & (loop_vars | frame.variant):
        return None
    return poly.substitute({n: Poly.sym(f"p:{n}") for n in poly.names()})


def _macro_rows(keys: set[str], macros: Mapping[str, str]) -> list[Row]:
    """`p:N == 64` for every symbol that is an integer macro."""
    rows: list[Row] = []
    for key in keys:
        text = macros.get(key[2:], "").strip().strip("()").strip()
        if key.startswith("p:") and text.isdigit():
            rows.append(row({key: 1}, -int(text), equality=True))
    return rows


def _crossing(lin: dict[str, int], bound: dict[str, int] | None) -> Row:
    """The row `sub < 0` (no bound) or `sub >= bound`."""
    if bound is None:
        coeffs = {k: -c for k, c in lin.items() if k}
        return row(coeffs, -lin.get("", 0) - 1)
    coeffs = dict(lin)
    for key, coeff in bound.items():
        coeffs[key] = coeffs.get(key, 0) - coeff
    const = coeffs.pop("", 0)
    return row({k: c for k, c in coeffs.items() if k}, const)


def _view_escapes(
    view: View, extents: Sequence[str | None], macros: Mapping[str, str], whole: bool
) -> list[Escape]:
    """Subscripts that leave their row.

    With `whole`, also ones that surely leave the array's first extent. An
    element's member (`b[l].lo[k]`) is a row from its first subscript on.
    """
    row_first = _element_row(view.ref.name)
    model = view.subscripts
    if not isinstance(model, Model):
        return []
    frame = view.frame
    base = (*domain_rows(frame), *model.rows)
    out: list[Escape] = []
    first = 0 if row_first or (whole and extents and extents[0] is not None) else 1
    for dim in range(first, len(model.polys)):
        lin = _linear(model.polys[dim])
        if lin is None:
            continue  # not affine: the dependence test already gives up on it
        levels = {k for k in lin if k and not k.startswith("p:")}
        bounded = all(k.isdigit() and bounded_level(frame, int(k)) for k in levels)
        text = extents[dim]
        size = _key_poly(text, frame) if text is not None else None
        size_lin = _linear(size) if size is not None else None
        sides: list[tuple[str, dict[str, int] | None]] = [("0", None)]
        if text is not None and size_lin is not None:
            sides.append((text, size_lin))
        for bound_text, bound in sides:
            rows = [*base]
            if bound is not None:  # an extent is at least 1
                rows.append(
                    row({k: c for k, c in bound.items() if k}, bound.get("", 0) - 1)
                )
            cross = _crossing(lin, bound)
            keys = {k for item in (*rows, cross) for k, _ in item.coeffs}
            rows.extend(_macro_rows(keys, macros))
            if is_empty(build((*rows, cross))):
                continue
            params = sorted(k for k in keys if k.startswith("p:"))
            certain = bounded and not view.ref.guarded and forced(rows, cross, params)
            if certain or (bound is None and (dim > 0 or row_first)):
                out.append(
                    Escape(ref=view.ref, dim=dim, bound=bound_text, certain=certain)
                )
                break
    return out


def extent_escapes(
    root: Loop, source: SourceFile, views: NestViews | None = None
) -> tuple[Escape, ...]:
    """Accesses in the nest `root`, to arrays it writes, that may leave a row.

    Reported: a subscript that crosses a bound in some iteration whatever the
    sizes are (certain), and one not proved to stay at or above 0. One that
    only may pass the end of its row for some sizes is left to the usual
    assumption that the program stays within its arrays.
    """
    if not any(
        r.subscripts and (r.is_write or len(r.subscripts) > 1) for r in root.refs
    ):
        return ()
    fn = source.function(root.function)
    macros = dict(source.macros)
    out: list[Escape] = []
    nest = views if views is not None else nest_views(root)
    for name, found in nest.arrays.items():
        for view in found:
            rank = len(view.ref.subscripts)
            var = _declaration(name, view.frame.loops, fn, source.globals)
            # A declared array, not a parameter (a pointer whatever its brackets).
            whole = var is not None and var.name == name and var.scope != "param"
            if rank < 2 and not whole and not _element_row(name):
                continue
            if var is None or var.name != name:
                # `g.a[i][j]`: the extents are the field's, not the struct's.
                var = member_var(name, fn, source.globals, source.types)
                if var is None:
                    var = _field_by_type(name, fn, source)
            extents = _extents(var, rank, source.types)
            out.extend(_view_escapes(view, extents, macros, whole))
    return tuple(out)


def _moves(escape: Escape, loop: Loop) -> bool:
    """True when the escaping subscript can change during the loop."""
    sub = escape.ref.subscripts[escape.dim]
    if sub.poly is None:
        return True
    changing = {inner.var for inner in loop.walk() if inner.var}
    changing |= {r.name for r in loop.refs if r.is_write and not r.subscripts}
    return bool(sub.poly.names() & changing)


def escapes_in(escapes: Sequence[Escape], loop: Loop) -> tuple[Escape, ...]:
    """The escapes that make the per-dimension test unsound for `loop`.

    Those inside it, on an array it writes, whose subscript moves during the
    loop or that meet another reference of the array there: a reference
    against itself, at an unchanging subscript, stays where it is.
    """
    out: list[Escape] = []
    for escape in escapes:
        ref = escape.ref
        if loop.id not in ref.loops:
            continue
        same = [r for r in loop.refs if r.name == ref.name and r.subscripts]
        if not any(r.is_write for r in same):
            continue
        texts = {tuple(s.text for s in r.subscripts) for r in same}
        if len(texts) > 1 or _moves(escape, loop):
            out.append(escape)
    return tuple(out)


def escape_how(escape: Escape) -> str:
    """How the subscript leaves its row: "subscript `j - 1` goes below 0"."""
    sub = f"subscript `{escape.ref.subscripts[escape.dim].text}`"
    if not escape.certain:
        return f"{sub} may go below 0"
    if escape.bound == "0":
        return f"{sub} goes below 0"
    return f"{sub} reaches `{escape.bound}`, the extent of its dimension"


def _element_row(name: str) -> bool:
    """Whether `name` is a member of an array's element, `b[l].lo`."""
    return _ELEMENT_MEMBER.search(name) is not None


def escape_reach(escape: Escape) -> str:
    """Where the access lands: another row, or outside the array."""
    if escape.dim == 0 and not _element_row(escape.ref.name):
        return "outside the array"
    return "into a neighbouring row that another iteration may write"


def escape_reason(escape: Escape) -> str:
    """Why the escape stops a loop, for a refusal reason."""
    ref = escape.ref
    side = "next" if escape.bound != "0" else "previous"
    if escape.dim == 0 and not _element_row(ref.name):
        return f"`{ref.render()}` (line {ref.span.line}): {escape_how(escape)}"
    return (
        f"`{ref.render()}` (line {ref.span.line}): {escape_how(escape)}, into the "
        f"{side} row, so the dependence test cannot tell rows apart"
    )
