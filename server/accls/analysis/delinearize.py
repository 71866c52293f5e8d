"""Affine views of array references: iteration domains and delinearized subscripts.

Variables are named by keys: `0`, `1` for a reference's iteration variables (by
loop level under the nest root), `0~` for stride counters, and `p:NAME` for
symbols that stay invariant in the nest. Within a pair, the first reference's
iteration keys get the prefix `s` and the second's `t`: `s0`, `t1`, `s0~`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accls.analysis.polyhedra import Row, row
from accls.analysis.quotient_bounds import quotient_rows
from accls.analysis.remainders import is_remainder_key, remainder_rows
from accls.frontend import Loop, Poly, Subscript
from accls.frontend.exprs import division_poly

__all__ = [
    "Frame",
    "Linear",
    "Model",
    "base_name",
    "bounded_level",
    "combine",
    "domain_rows",
    "linear",
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
    A remainder variable (`%0`, see remainders) is its own key.
    """
    if is_remainder_key(name):
        return name
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


def linear(poly: Poly, side: str = "") -> Linear:
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
    poly = _constants(poly, frame)
    renamed = None if poly is None else _rename(poly, frame, level)
    return linear(renamed) if renamed is not None and renamed.is_affine else None


def _constants(poly: Poly | None, frame: Frame) -> Poly | None:
    """`poly` with the integer macros' values: `MAXATOMS*iBox` is `64*iBox`."""
    if poly is None or not frame.constants:
        return poly
    return poly.substitute({name: Poly.const(v) for name, v in frame.constants})


def _bound_macros(frame: Frame) -> set[str]:
    """The keys of the macros the loop headers name, folded into their bounds.

    Their values stay facts of the domain: a subscript keeps the name
    (`f[NX + x]` under `x < NX` splits into rows of `NX`).
    """
    names = {n for n, _ in frame.constants}
    return {
        f"p:{name}"
        for loop in frame.loops
        for poly in (loop.lower, loop.upper, *(lim.poly for lim in loop.limits))
        if poly is not None
        for name in poly.names() & names
    }


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
    folded = _constants(lower, frame)
    if folded is not None and folded.is_affine:
        return None  # an affine start (macros' values in) is bounded as it is
    width = _bound(upper - lower, frame, level)
    return None if width is None else (lower, width)


def combine(left: Linear, right: Linear, sign: int, shift: int = 0) -> Row:
    """The row `left + sign*right + shift >= 0`."""
    lin = dict(left[0])
    for key, coeff in right[0].items():
        lin[key] = lin.get(key, 0) + sign * coeff
    return row(lin, left[1] + sign * right[1] + shift)


def domain_rows(frame: Frame) -> tuple[Row, ...]:
    """Constraints on the reference's iteration variables from its loop headers."""
    rows: list[Row] = []
    for level, loop in enumerate(frame.loops):
        # A macro step `T` steps by its value (`ii` is a multiple of 32); another
        # variable one (assumed positive) rises like a step of 1.
        known = dict(frame.constants).get(loop.step_symbol, 0)
        step = loop.step or (max(known, 1) if loop.step_symbol else None)
        if level in frame.free or not step:
            continue
        key = str(level)
        var: Linear = ({key: 1}, 0)
        rebased = _rebased(frame, level)
        if rebased is not None:  # the key is the offset into the row
            rows.append(row({key: 1}))
            rows.append(combine(rebased[1], var, -1, -1 if loop.cond_op == "<" else 0))
            continue
        if loop.step_symbol:
            rows.append(row({f"p:{loop.step_symbol}": 1}, -1))
        up = step > 0
        lower = _bound(loop.lower, frame, level)
        if lower is not None:
            # The initial value is the least value of an increasing loop.
            gap = combine(var, lower, -1) if up else combine(lower, var, -1)
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
                rows.append(combine(*pair, -1))
        upper = _bound(loop.upper, frame, level)
        if upper is None or op not in ("<", "<=", ">", ">="):
            continue
        strict = -1 if op in ("<", ">") else 0
        if op[0] == "<":
            rows.append(combine(upper, var, -1, strict))
        else:
            rows.append(combine(var, upper, -1, strict))
    used = {key for item in rows for key, _ in item.coeffs} | _bound_macros(frame)
    for poly, equal in frame.relations:  # the nest reads their names
        coeffs = {f"p:{mono[0]}": coeff for mono, coeff in poly.terms if mono}
        rows.append(row(coeffs, poly.constant, equality=equal))
        used |= set(coeffs)
    for name, value in frame.constants:
        if f"p:{name}" in used:
            rows.append(row({f"p:{name}": 1}, -value, equality=True))
    loop_vars = {loop.var for loop in frame.loops}
    return (
        *rows,
        *quotient_rows(
            rows,
            lambda name: (
                name not in loop_vars
                and _key(name, frame, len(frame.loops)) == f"p:{name}"
            ),
        ),
    )


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
    rows: tuple[Row, ...] = ()  # bounds of the remainder keys (`%0`), unsided


def _remainders(
    text: str,
    frame: Frame,
    offsets: dict[str, Poly],
    taken: dict[str, tuple[Poly, Poly, str]],
) -> Poly | None:
    """A subscript with `e % m` or `e / d` terms, each as a new key, or None.

    The keys and their (dividend, divisor, operator) over keys are added to
    `taken`; `offsets` rewrite row-offset loop variables (see `_rebased`).
    """
    found = division_poly(text)
    if found is None:
        return None
    poly, parts = found
    depth = len(frame.loops)
    names: dict[str, Poly] = {}
    for pos, (top, bottom, op) in enumerate(parts):
        key = f"%{len(taken)}"
        left = _rename(top.substitute({**offsets, **names}), frame, depth)
        size = _rename(bottom.substitute({**offsets, **names}), frame, depth)
        if left is None or size is None:
            return None
        taken[key] = (left, size, op)
        names[f"%{pos}"] = Poly.sym(key)
    return poly.substitute({**offsets, **names})


def model_subscripts(
    array: str, subs: Sequence[Subscript], frame: Frame, fortran: bool = False
) -> Model | str:
    """Each subscript over variable keys, or why one cannot be modelled.

    A C subscript with `e % m` terms (`x*5 + y % 5`) holds remainder keys,
    bounded by the model's rows where `e >= 0` and `m >= 1` are proved.
    """
    polys: list[Poly] = []
    taken: dict[str, tuple[Poly, Poly, str]] = {}
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
        if poly is None and not fortran:  # Fortran's `%` picks a component
            poly = _remainders(sub.text, frame, offsets, taken)
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
    used = frozenset(key for poly in polys for key in poly.names())
    rows = (
        remainder_rows(taken, domain_rows(frame), dict(frame.constants), used)
        if taken
        else ()
    )
    if rows is None:
        shown = next(s.text for s in subs if s.poly is None)
        return (
            f"subscript `{shown}` of `{array}` is not affine: its remainder or "
            "quotient is not proved to stay within bounds (`e >= 0` and a divisor "
            "`>= 1` that the loop does not change, unproved)"
        )
    return Model(tuple(polys), frozenset(changing), note, rows)
