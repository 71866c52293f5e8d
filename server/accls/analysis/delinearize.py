"""Affine views of array references: iteration domains and delinearized subscripts.

Variables are named by keys: `0`, `1` for a reference's iteration variables (by
loop level under the nest root), `0~` for stride counters, and `p:NAME` for
symbols that stay invariant in the nest. Within a pair, the first reference's
iteration keys get the prefix `s` and the second's `t`: `s0`, `t1`, `s0~`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import gcd

from accls.analysis.polyhedra import Row, build, constrain, is_empty, row
from accls.frontend import Loop, Poly, Subscript

__all__ = [
    "Frame",
    "Model",
    "base_name",
    "bounded_level",
    "domain_rows",
    "equalities",
    "model_subscripts",
    "on_side",
]

Linear = tuple[dict[str, int], int]
"""An affine form: coefficients by variable key, and the constant."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One reference seen from the nest root: its loops and how symbols resolve."""

    loops: tuple[Loop, ...]  # enclosing loops under the root, outermost first
    variant: frozenset[str]  # symbols written somewhere in the nest
    free: frozenset[int] = frozenset()  # levels whose bounds do not hold here
    # Object-like macros of integer constants (`RADIUS` is 2): their values
    # hold in every domain that mentions them.
    constants: tuple[tuple[str, int], ...] = ()
    # Facts of scalars fixed before the nest (`ss == 4*r + 1`, `r >= 0`; see
    # symbol_facts): affine forms over their names, `== 0` (True) or `>= 0`.
    relations: tuple[tuple[Poly, bool], ...] = ()


def _key(name: str, frame: Frame, depth: int, strict: bool = True) -> str | None:
    """The variable key of symbol `name`, seeing loops above level `depth` only.

    A symbol written in the nest has no key when `strict`; otherwise it is
    keyed as an invariant symbol, for the levels where it cannot change.
    """
    for level in range(depth - 1, -1, -1):
        if frame.loops[level].var == name:
            return str(level)
    if strict and (name in frame.variant or base_name(name) in frame.variant):
        return None
    return f"p:{name}"


def base_name(name: str) -> str:
    """The variable a member path starts from: `s` for `s.n` and `q->k`."""
    return name.split(".", 1)[0].split("->", 1)[0].strip("(*) ")


def _rename(poly: Poly, frame: Frame, depth: int, strict: bool = True) -> Poly | None:
    """`poly` over variable keys; None when a symbol has no key (see `_key`)."""
    # Distinct symbols get distinct keys, so terms stay distinct: no merging.
    terms: list[tuple[tuple[str, ...], int]] = []
    for mono, coeff in poly.terms:
        keys: list[str] = []
        for name in mono:
            key = _key(name, frame, depth, strict)
            if key is None:
                return None
            keys.append(key)
        terms.append((tuple(sorted(keys)) if len(keys) > 1 else tuple(keys), coeff))
    terms.sort()
    return Poly(tuple(terms))


def _sided(key: str, side: str) -> str:
    return key if key.startswith("p:") else side + key


def on_side(rows: Sequence[Row], side: str) -> tuple[Row, ...]:
    """The rows with iteration keys prefixed by `side` ("s" or "t")."""
    return tuple(
        Row(
            tuple((_sided(k, side), c) for k, c in item.coeffs),
            item.const,
            item.equality,
        )
        for item in rows
    )


def _linear(poly: Poly, side: str = "") -> Linear:
    """The affine form of an affine polynomial, iteration keys prefixed by `side`."""
    lin: dict[str, int] = {}
    const = 0
    for mono, coeff in poly.terms:
        if mono:
            lin[_sided(mono[0], side)] = coeff
        else:
            const = coeff
    return lin, const


def _bound(poly: Poly | None, frame: Frame, level: int) -> Linear | None:
    renamed = None if poly is None else _rename(poly, frame, level)
    return _linear(renamed) if renamed is not None and renamed.is_affine else None


def _rebased(frame: Frame, level: int) -> tuple[Poly, Linear] | None:
    """(lower, width) of a loop counted over a row: `e = r*n; e < (r + 1)*n`.

    Its key then stands for the offset `e - r*n`, in [0, n): subscripts in `e`
    read as `r*n + offset`, which splits into rows of `n`.
    """
    loop = frame.loops[level]
    lower, upper = loop.lower, loop.upper
    if loop.step != 1 or loop.var is None or loop.limits or level in frame.free:
        return None
    if loop.cond_op not in ("<", "<=") or lower is None or upper is None:
        return None
    if lower.is_affine or loop.var in lower.names():
        return None
    width = _bound(upper - lower, frame, level)
    return None if width is None else (lower, width)


def _combine(left: Linear, right: Linear, sign: int, shift: int = 0) -> Row:
    """The row `left + sign*right + shift >= 0`."""
    lin = dict(left[0])
    for key, coeff in right[0].items():
        lin[key] = lin.get(key, 0) + sign * coeff
    return row(lin, left[1] + sign * right[1] + shift)


def domain_rows(frame: Frame) -> tuple[Row, ...]:
    """Constraints on the reference's iteration variables from its loop headers."""
    rows: list[Row] = []
    for level, loop in enumerate(frame.loops):
        # A variable step `T` (assumed positive) rises like a step of 1.
        step = loop.step or (1 if loop.step_symbol else None)
        if level in frame.free or not step:
            continue
        key = str(level)
        var: Linear = ({key: 1}, 0)
        rebased = _rebased(frame, level)
        if rebased is not None:  # the key is the offset into the row
            rows.append(row({key: 1}))
            rows.append(_combine(rebased[1], var, -1, -1 if loop.cond_op == "<" else 0))
            continue
        if loop.step_symbol:
            rows.append(row({f"p:{loop.step_symbol}": 1}, -1))
        up = step > 0
        lower = _bound(loop.lower, frame, level)
        if lower is not None:
            # The initial value is the least value of an increasing loop.
            gap = _combine(var, lower, -1) if up else _combine(lower, var, -1)
            rows.append(gap)
            if abs(step) > 1:
                count = (f"{key}~", -abs(step))
                rows.append(Row((*gap.coeffs, count), gap.const, equality=True))
        op = loop.cond_op
        if op == "!=" and abs(step) == 1:
            op = "<" if up else ">"
        for limit in loop.limits:
            bound = _bound(limit.poly, frame, level)
            if bound is not None:
                scaled: Linear = ({key: limit.scale}, 0)
                pair = (bound, scaled) if limit.upper else (scaled, bound)
                rows.append(_combine(*pair, -1))
        upper = _bound(loop.upper, frame, level)
        if upper is None or op not in ("<", "<=", ">", ">="):
            continue
        strict = -1 if op in ("<", ">") else 0
        if op[0] == "<":
            rows.append(_combine(upper, var, -1, strict))
        else:
            rows.append(_combine(var, upper, -1, strict))
    used = {key for item in rows for key, _ in item.coeffs}
    for poly, equal in frame.relations:  # the nest reads their names
        coeffs = {f"p:{mono[0]}": coeff for mono, coeff in poly.terms if mono}
        rows.append(row(coeffs, poly.constant, equality=equal))
        used |= set(coeffs)
    for name, value in frame.constants:
        if f"p:{name}" in used:
            rows.append(row({f"p:{name}": 1}, -value, equality=True))
    return tuple(rows)


def bounded_level(frame: Frame, level: int) -> bool:
    """True when `domain_rows` bounds the variable of `level` on both sides."""
    loop = frame.loops[level]
    stepped = loop.step or loop.step_symbol
    if level in frame.free or not stepped or loop.unbounded:
        return False
    key = str(level)
    signs = {
        coeff > 0
        for item in domain_rows(frame)
        if not item.equality
        for name, coeff in item.coeffs
        if name == key
    }
    return signs == {True, False}


@dataclass(frozen=True, slots=True)
class Model:
    """A reference's subscripts over variable keys."""

    polys: tuple[Poly, ...]
    changing: frozenset[str] = frozenset()  # symbols written in the nest, as keys
    note: str = ""  # how the first changing symbol is used, for a reason text


def model_subscripts(
    array: str, subs: Sequence[Subscript], frame: Frame
) -> Model | str:
    """Each subscript over variable keys, or why one cannot be modelled."""
    polys: list[Poly] = []
    changing: set[str] = set()
    note = ""
    depth = len(frame.loops)
    offsets: dict[str, Poly] = {}
    for level in range(depth):
        rebased = _rebased(frame, level)
        var = frame.loops[level].var
        if rebased is not None and var is not None:
            offsets[var] = rebased[0] + Poly.sym(var)  # see _rebased
    for sub in subs:
        if sub.indirect:
            return f"subscript `{sub.text}` of `{array}` reads another array"
        poly = sub.poly.substitute(offsets) if sub.poly and offsets else sub.poly
        renamed = None if poly is None else _rename(poly, frame, depth, False)
        if sub.poly is None and sub.text.strip() == ":":
            # A whole dimension (a Fortran section or a whole-array argument).
            return f"each iteration may touch every element of `{array}` (`:`)"
        if poly is None or renamed is None:
            return f"subscript `{sub.text}` of `{array}` is not affine"
        moving = {n for n in poly.names() if _key(n, frame, depth) is None}
        if moving and not note:
            note = (
                f"subscript `{sub.text}` of `{array}` uses `{min(moving)}`, "
                "which changes inside the loop"
            )
        changing |= moving
        polys.append(renamed)
    return Model(tuple(polys), frozenset(changing), note)


Factor = str | int | tuple[str, int]
"""An extent: a symbol key, a constant, or a constant times a symbol (`5*n`)."""


def _divide(poly: Poly, factor: Factor) -> tuple[Poly, Poly]:
    """(quotient, rest): the terms that `factor` divides, divided, and the others."""
    quotient: list[tuple[tuple[str, ...], int]] = []
    rest: list[tuple[tuple[str, ...], int]] = []
    for mono, coeff in poly.terms:
        if isinstance(factor, tuple):
            name, scale = factor
            if name in mono and not coeff % scale:
                pos = mono.index(name)
                quotient.append(((*mono[:pos], *mono[pos + 1 :]), coeff // scale))
            else:
                rest.append((mono, coeff))
        elif isinstance(factor, int):
            if coeff % factor:
                rest.append((mono, coeff))
            else:
                quotient.append((mono, coeff // factor))
        elif factor in mono:
            pos = mono.index(factor)
            quotient.append(((*mono[:pos], *mono[pos + 1 :]), coeff))
        else:
            rest.append((mono, coeff))
    # Distinct terms stay distinct without one factor; sorting restores normal form.
    return Poly(tuple(sorted(quotient))), Poly(tuple(rest))


def _factors(polys: Sequence[Poly]) -> list[Factor]:
    """Candidate extents: symbols in every non-linear term, then a common constant.

    The constant covers a fixed inner extent, as in `(i*m + j)*8 + k`; a symbol
    times the constant covers rows of `5*n`, as in `x*5*n + y` with `y < 5*n`.
    """
    common: set[str] | None = None
    scale = 0
    for poly in polys:
        for mono, coeff in poly.terms:
            if len(mono) > 1:
                names = {k for k in mono if k.startswith("p:")}
                common = names if common is None else common & names
                scale = gcd(scale, coeff)
    out: list[Factor] = sorted(common or ())
    if scale > 1:
        out.extend((name, scale) for name in sorted(common or ()))
        out.append(scale)
    return out


def _in_range(rests: Sequence[Poly], factor: Factor, context: Sequence[Row]) -> bool:
    """True when 0 <= r < factor for both rests (first on side s, then t)."""
    domain = build(context)
    size: Linear
    if isinstance(factor, tuple):
        size = ({factor[0]: factor[1]}, 0)
    elif isinstance(factor, int):
        size = ({}, factor)
    else:
        size = ({factor: 1}, 0)
    for rest, side in zip(rests, "st", strict=True):
        lin = _linear(rest, side)
        for item in (_combine(({}, -1), lin, -1), _combine(lin, size, -1)):
            known = all(key in domain.columns for key, _ in item.coeffs)
            # A key the context never mentions is unconstrained: give it a column.
            checked = constrain(domain, item) if known else build((*context, item))
            if not is_empty(checked):
                return False
    return True


def _split(
    left: Poly, right: Poly, context: Sequence[Row]
) -> list[tuple[Poly, Poly]] | None:
    """Pairs of affine subscripts equivalent to `left == right`, or None."""
    if left.is_affine and right.is_affine:
        return [(left, right)]
    for factor in _factors((left, right)):
        high_l, low_l = _divide(left, factor)
        high_r, low_r = _divide(right, factor)
        if not (low_l.is_affine and low_r.is_affine):
            continue
        if not _in_range((low_l, low_r), factor, context):
            continue
        inner = _split(high_l, high_r, context)
        if inner is not None:
            return [*inner, (low_l, low_r)]
    return None


def _open_column(column: Poly, size: str, loops: Sequence[Loop]) -> str:
    """Which loop of the column part stops at a bound not tied to `size`, in words.

    `for (ii = 0; ii < s->boxes->nAtoms[iBox]; ii++)` with `p[MAXATOMS*iBox + ii]`:
    the split needs `nAtoms[iBox] <= MAXATOMS`, a fact about memory's contents.
    """
    for mono, _ in column.terms:
        if len(mono) != 1 or not mono[0].isdigit():
            continue
        level = int(mono[0])
        if level >= len(loops):
            continue
        loop = loops[level]
        if not loop.upper_text or not loop.var:
            continue
        upper = loop.upper
        if upper is not None and upper.is_affine and "[" not in loop.upper_text:
            continue
        read = "->" in loop.upper_text or "[" in loop.upper_text
        what = "a value read from memory" if read else "a value"
        return (
            f": `{loop.var}` stops at `{loop.upper_text}`, {what} that nothing "
            f"proves to be at most `{size}`"
        )
    return ""


def equalities(
    array: str,
    subs: tuple[Sequence[Subscript], Sequence[Subscript]],
    models: tuple[Sequence[Poly], Sequence[Poly]],
    context: Sequence[Row],
    loops: tuple[Sequence[Loop], Sequence[Loop]] = ((), ()),
) -> tuple[Row, ...] | str:
    """Equalities that hold when both references touch the same element, or why not.

    `context` holds both references' domain rows, on sides s and t; a linearized
    subscript such as `i*n + j` is split into (i, j) only when 0 <= j < n is
    proved over it. `loops` are each reference's loops, to say which bound
    leaves that unproved.
    """
    # `f[i]` (a whole row, as a callee writes it) and `f[i][k]`: the two touch
    # the same memory only if the rows their common subscripts pick are equal.
    size = min(len(subs[0]), len(subs[1]), len(models[0]), len(models[1]))
    if size == 0 and len(subs[0]) != len(subs[1]):
        return f"`{array}` is indexed with {len(subs[0])} and {len(subs[1])} subscripts"
    rows: list[Row] = []
    for pos, (left, right) in enumerate(
        zip(models[0][:size], models[1][:size], strict=True)
    ):
        split = _split(left, right, context)
        if split is None:
            text = subs[0][pos].text if not left.is_affine else subs[1][pos].text
            sizes = [f for f in _factors((left, right)) if isinstance(f, str)]
            if sizes:
                # A row-major index whose column part may leave [0, n): in C it
                # then reaches a neighbouring row, so rows cannot be told apart.
                side = 0 if not left.is_affine else 1
                column = _divide((left, right)[side], sizes[0])[1]
                return (
                    f"subscript `{text}` of `{array}` cannot be split into rows "
                    f"of `{sizes[0][2:]}`: its column part is not proved to stay "
                    f"within [0, {sizes[0][2:]})"
                    + _open_column(column, sizes[0][2:], loops[side])
                )
            return f"subscript `{text}` of `{array}` is not affine"
        for part_l, part_r in split:
            rows.append(_combine(_linear(part_l, "s"), _linear(part_r, "t"), -1))
    return tuple(Row(item.coeffs, item.const, equality=True) for item in rows)
