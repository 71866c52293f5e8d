"""Sums and products kept in single (or half) precision: threads change the digits.

`float s; s += a[i]` rounds the running total to 24 bits at every step, so the
grouping decides the low digits: over 6144 values near 0.3 the serial total is
1607.598755 and two threads' partial totals add up to 1607.598633, a relative
difference near 1e-7, a hundred times what a `double` total shows over far
more values. A result that changes in its seventh digit when the thread count
changes is a changed result, so accls offers no such loop (a `double`
accumulator keeps it). The scalar stays a reduction for the checks: a user's
own `reduction(+: s)` is their choice of rounding, not a race. `min`, `max`
and the bitwise and logical operators are exact in any type. In Fortran a
default `real` (or `real(4)`, `real(sp)`) is single precision; `real(dp)` takes
its precision from the kind (`frontend/fortran_kinds.py`).

A user who accepts the low digits moving may say so: the setting
`reassociateFloat` (`--reassociate-float`), or a build that already lets the
compiler reorder sums (`-ffast-math`, `-Ofast`, `-fassociative-math`: the
preprocessor then defines `__ASSOCIATIVE_MATH__` or `__FAST_MATH__`). Such a
total is reduced, and the loop's facts state the assumption.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.deduced_types import AUTO, declared_scalar
from accls.analysis.model import Obstacle, ObstacleCode, ScalarClass, ScalarFact
from accls.analysis.reduction_refusals import scalar_decl
from accls.analysis.wide_totals import lock_free_atomics, wide_sums
from accls.frontend import Function, Loop, RedOp, Ref, SourceFile

__all__ = ["NARROW", "exact_atomics", "narrow_sums", "narrow_type", "reassociation"]

NARROW = frozenset({"float", "_Float16", "_Float32", "__fp16", "__bf16"})
_ROUNDED = frozenset({RedOp.ADD, RedOp.MUL})
_QUALIFIERS = frozenset({"const", "volatile", "static", "register"})
# A complex total rounds each part like a real one: `float complex` is narrow.
_COMPLEX = frozenset({"complex", "_Complex", "__complex__"})
# Words a misread complex declaration leaves as a variable's name.
_TYPE_WORDS = frozenset({"float", "double", "long", "short", "int", "char", "signed"})
# What gcc and clang predefine when the build lets them reorder floating sums.
_REORDERING_MACROS = ("__ASSOCIATIVE_MATH__", "__FAST_MATH__")


def reassociation(asked: bool, source: SourceFile) -> str:
    """Why narrow totals may be reassociated here ("" when they may not)."""
    if asked:
        return "reassociate-float"
    macros = dict(source.macros)
    if any(name in macros for name in _REORDERING_MACROS):
        return "the build's -ffast-math or -fassociative-math"
    return ""


def _narrow_type(name: str, fn: Function | None, source: SourceFile, loop: Loop) -> str:
    """The declared type of scalar `name` when it is a narrow floating one, else ""."""
    decl = scalar_decl(name, fn, source, loop)
    if decl is None and _misread(fn, source):
        return "complex"  # of a precision the parse lost: maybe `float`
    if decl is None or decl.pointers or decl.dims:
        return ""
    type_ = declared_scalar(decl, source, fn)
    words = set(type_.split()) - _QUALIFIERS
    if words and words <= _COMPLEX:
        return "complex"  # `_Complex float s` read as `_Complex s`: no precision
    return type_ if type_ == AUTO or narrow_type(type_, source) else ""


def _misread(fn: Function | None, source: SourceFile) -> bool:
    """Whether the C grammar misread a complex declaration here.

    It knows no `_Complex`: `float complex s;` reads as a variable `complex` of
    type `float`, `_Complex float s;` as a variable `float` of type `_Complex`,
    and `s` has no declaration left to give its precision.
    """
    found = [*(fn.locals if fn is not None else ()), *source.globals]
    return any(
        v.name in _COMPLEX | _TYPE_WORDS or set(v.type.split()) & _COMPLEX
        for v in found
    )


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
    reassociate: bool = False,
) -> dict[str, list[Ref]]:
    """The atomic updates of `atomic` but `+`/`*` into narrow floating elements.

    `#pragma omp atomic` on `hist[b] += w` with a `float` histogram adds in
    whatever order the threads arrive: each bin is a `float` total whose digits
    follow the grouping, refused like the scalar one (kept when the user lets
    totals be reassociated: `reassociate`). None into an element over eight
    bytes either (`wide_totals`): that one would not link with clang.
    """
    atomic = lock_free_atomics(atomic, loop, fn, source)
    if reassociate:
        return dict(atomic)
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
    reassociate: str = "",
) -> tuple[tuple[Obstacle, ...], tuple[str, ...]]:
    """An obstacle for each `+`/`*` reduction the loop keeps in a narrow type.

    With `reassociate` (why the user allows it, see `reassociation`) there is
    none: the second part states each such total's assumption instead. Totals
    over eight bytes (`wide_totals`) are refused whatever the setting.
    """
    wide = "`real(kind(1.0d0))`" if loop.fortran else "`double`"
    found = []
    stated = []
    for fact in scalars:
        if fact.cls is not ScalarClass.REDUCTION or fact.op not in _ROUNDED:
            continue
        type_ = _narrow_type(fact.name, fn, source, loop)
        type_ = "real" if type_ and loop.fortran else type_
        if type_ and reassociate:
            stated.append(
                f"reduces the `{type_}` total `{fact.name}` ({reassociate}): its "
                "low digits may change with the number of threads"
            )
        elif type_:
            found.append(
                Obstacle(
                    code=ObstacleCode.ROUNDING,
                    line=fact.line,
                    variable=fact.name,
                    message=(
                        _what(fact.name, type_, fact.line)
                        + "rounded to single precision at every step, its digits "
                        "depend on how the values are grouped, so threads' "
                        f"partial totals add up to another value; a {wide} "
                        "accumulator would keep it (or accept the change: "
                        "reassociateFloat, --reassociate-float)"
                    ),
                )
            )
    return (*found, *wide_sums(scalars, loop, fn, source)), tuple(stated)


def _what(name: str, type_: str, line: int) -> str:
    if type_ == AUTO:
        return (
            f"`{name}` is a total (line {line}) declared `auto` from an initializer "
            "whose type accls cannot tell, so it may be a `float`: "
        )
    if type_ != "complex":
        return f"`{name}` is a `{type_}` total (line {line}): "
    return (
        f"`{name}` is a total (line {line}) next to a complex declaration that "
        "accls cannot read (its C grammar knows no `_Complex`), so it may be a "
        "`float complex`: "
    )
