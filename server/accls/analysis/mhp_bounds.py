"""The bounds of the sequential loops a thread runs inside a region, as isl rows."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from accls.analysis.macro_fold import folded_poly
from accls.analysis.polyhedra import Row, row
from accls.frontend import Loop, Poly

__all__ = ["Sweep", "bound_rows", "enclosing", "invariant_symbol", "sweep_of"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_ARITHMETIC = re.compile(r"[\w\s+\-*/%()]*")
_CALL = re.compile(r"[A-Za-z_]\w*\s*\(")
Linear = tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Sweep:
    """A sequential loop: `low <= var <= high` over names with one value per region."""

    var: str
    start: int  # byte span of the loop statement
    end: int
    low: Linear | None  # a linear form over invariant names ("1": the constant)
    high: Linear | None


def _linear(poly: Poly | None, text: str, invariant: frozenset[str]) -> Linear | None:
    """The bound as a linear form; an opaque invariant expression is one symbol."""
    if poly is not None and all(len(m) <= 1 for m, _ in poly.terms):
        names = {m[0] for m, _ in poly.terms if m}
        if names <= invariant:
            return tuple(((m[0] if m else "1"), c) for m, c in poly.terms)
    names = set(_NAME.findall(text))
    if text.strip() and names and names <= invariant:
        return ((f"[{''.join(text.split())}]", 1),)  # `n / 2`: one value for all
    return None


def invariant_symbol(text: str, invariant: Iterable[str]) -> Poly | None:
    """`n / 2` over invariant names as the one symbol `[n/2]`; None otherwise.

    Only arithmetic qualifies: no call, subscript, member, cast or side effect,
    so the text has one value wherever the names keep theirs.
    """
    names = set(_NAME.findall(text))
    if not names or not names <= set(invariant) or not _ARITHMETIC.fullmatch(text):
        return None
    if _CALL.search(text) or "++" in text or "--" in text:
        return None
    return Poly.sym(f"[{''.join(text.split())}]")


def _shift(form: Linear | None, by: int) -> Linear | None:
    if form is None:
        return None
    out = dict(form)
    out["1"] = out.get("1", 0) + by
    return tuple(out.items())


def _folded(form: Linear | None, constants: Mapping[str, int]) -> Linear | None:
    """The form with the names of integer macros replaced by their values."""
    if form is None:
        return None
    out: dict[str, int] = {}
    for key, coeff in form:
        if key in constants:
            out["1"] = out.get("1", 0) + coeff * constants[key]
        else:
            out[key] = out.get(key, 0) + coeff
    return tuple(out.items())


def sweep_of(
    loop: Loop, invariant: frozenset[str], constants: Mapping[str, int] | None = None
) -> Sweep | None:
    """The range of a unit-step sequential loop's variable; None when not known.

    `constants`: integer macros (`#define N 100`), whose values the bounds take.
    """
    if not loop.var or loop.step not in (1, -1) or loop.volatile_bounds:
        return None
    known = constants or {}
    # `(N / 2)` is one opaque name to the front end: fold the macro first.
    lower = folded_poly(loop.lower_text, known, loop.lower)
    upper = folded_poly(loop.upper_text, known, loop.upper)
    invariant = invariant | set(known)
    start = _folded(_linear(lower, loop.lower_text, invariant), known)
    bound = _folded(_linear(upper, loop.upper_text, invariant), known)
    limit = {"<": -1, "<=": 0, ">": 1, ">=": 0}.get(loop.cond_op or "")
    bound = None if limit is None else _shift(bound, limit)
    low, high = (start, bound) if loop.step == 1 else (bound, start)
    if loop.step == 1 and loop.cond_op in (">", ">="):
        high = None  # a rising loop tested from below: no upper bound
    if loop.step == -1 and loop.cond_op in ("<", "<="):
        low = None
    return Sweep(loop.var, loop.span.start_byte, loop.span.end_byte, low, high)


def enclosing(sweeps: Iterable[Sweep], pos: int) -> tuple[Sweep, ...]:
    """The innermost sweep of each variable whose loop contains `pos`."""
    best: dict[str, Sweep] = {}
    for s in sweeps:
        if s.start <= pos < s.end:
            held = best.get(s.var)
            if held is None or held.start < s.start:
                best[s.var] = s
    return tuple(best.values())


def bound_rows(sweeps: Iterable[Sweep], side: int, keys: set[str]) -> list[Row]:
    """`low <= var@side <= high` for each sweep whose variable the rows use."""
    out: list[Row] = []
    for s in sweeps:
        key = f"{s.var}@{side}"
        if key not in keys:
            continue
        if s.low is not None:
            lin = {k: -c for k, c in s.low if k != "1"}
            lin[key] = lin.get(key, 0) + 1
            out.append(row(lin, -dict(s.low).get("1", 0)))
        if s.high is not None:
            lin = {k: c for k, c in s.high if k != "1"}
            lin[key] = lin.get(key, 0) - 1
            out.append(row(lin, dict(s.high).get("1", 0)))
    return out
