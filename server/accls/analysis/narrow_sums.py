"""Sums and products kept in single (or half) precision: threads change the digits.

`float s; s += a[i]` rounds the running total to 24 bits at every step, so the
grouping decides the low digits: over 6144 values near 0.3 the serial total is
1607.598755 and two threads' partial totals add up to 1607.598633, a relative
difference near 1e-7, a hundred times what a `double` total shows over far
more values. A result that changes in its seventh digit when the thread count
changes is a changed result, so accls offers no such loop (a `double`
accumulator keeps it). The scalar stays a reduction for the checks: a user's
own `reduction(+: s)` is their choice of rounding, not a race. `min`, `max`
and the bitwise and logical operators are exact in any type. Fortran's `real`
is not read here: the front end cannot tell a default `real` from `real(dp)`.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.model import Obstacle, ObstacleCode, ScalarClass, ScalarFact
from accls.analysis.reduction_refusals import scalar_decl
from accls.frontend import Function, Loop, RedOp, Ref, SourceFile

__all__ = ["NARROW", "exact_atomics", "narrow_sums", "narrow_type"]

NARROW = frozenset({"float", "_Float16", "_Float32", "__fp16", "__bf16"})
_ROUNDED = frozenset({RedOp.ADD, RedOp.MUL})
_QUALIFIERS = frozenset({"const", "volatile", "static", "register"})
# A complex total rounds each part like a real one: `float complex` is narrow.
_COMPLEX = frozenset({"complex", "_Complex"})


def _narrow_type(name: str, fn: Function | None, source: SourceFile, loop: Loop) -> str:
    """The declared type of scalar `name` when it is a narrow floating one, else ""."""
    decl = scalar_decl(name, fn, source, loop)
    if decl is None and _misread(fn, source):
        return "complex"  # of a precision the parse lost: maybe `float`
    if decl is None or decl.pointers or decl.dims:
        return ""
    return decl.type if narrow_type(decl.type, source) else ""


def _misread(fn: Function | None, source: SourceFile) -> bool:
    """Whether the C grammar misread a complex declaration here.

    It knows no `_Complex`: `float complex s;` reads as a variable `complex` of
    type `float`, and `s` has no declaration left to give its precision.
    """
    names = [v.name for v in fn.locals] if fn is not None else []
    names += [g.name for g in source.globals]
    return any(name in _COMPLEX for name in names)


def narrow_type(type_: str, source: SourceFile) -> bool:
    """Whether `type_` (through a macro or typedef) is a narrow floating type."""
    named = dict(source.macros).get(type_, type_)
    base = source.types.scalar_base(named) or named
    words = set(base.split()) - _QUALIFIERS - _COMPLEX
    return bool(words) and words <= NARROW


def exact_atomics(
    atomic: Mapping[str, list[Ref]],
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
) -> dict[str, list[Ref]]:
    """The atomic updates of `atomic` but `+`/`*` into narrow floating elements.

    `#pragma omp atomic` on `hist[b] += w` with a `float` histogram adds in
    whatever order the threads arrive: each bin is a `float` total whose digits
    follow the grouping, refused like the scalar one.
    """
    kept = {}
    for name, refs in atomic.items():
        decl = scalar_decl(name, fn, source, loop)
        rounded = any(r.reduction in _ROUNDED for r in refs)
        if not (rounded and decl is not None and narrow_type(decl.type, source)):
            kept[name] = refs
    return kept


def narrow_sums(
    scalars: tuple[ScalarFact, ...],
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
) -> tuple[Obstacle, ...]:
    """An obstacle for each `+`/`*` reduction the loop keeps in a narrow type."""
    if loop.fortran:
        return ()
    found = []
    for fact in scalars:
        if fact.cls is not ScalarClass.REDUCTION or fact.op not in _ROUNDED:
            continue
        type_ = _narrow_type(fact.name, fn, source, loop)
        if type_:
            found.append(
                Obstacle(
                    code=ObstacleCode.ROUNDING,
                    line=fact.line,
                    variable=fact.name,
                    message=(
                        f"`{fact.name}` is a `{type_}` total (line {fact.line}): "
                        "rounded to single precision at every step, its digits "
                        "depend on how the values are grouped, so threads' "
                        "partial totals add up to another value; a `double` "
                        "accumulator would keep it"
                    ),
                )
            )
    return tuple(found)
