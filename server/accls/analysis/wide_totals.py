"""Totals wider than eight bytes: their reduction or atomic needs libatomic.

A `reduction(+: s)` combines the threads' partial totals, and `#pragma omp
atomic` updates an element, with the target's atomic instructions. A `long
double` (16 bytes on x86-64), a `__float128`, an `__int128` or a `double
complex` has no lock-free atomic there: clang calls `__atomic_load` and
`__atomic_compare_exchange` from libatomic, so the annotated program fails to
link unless the build adds `-latomic` (gcc does not, which is why the compile
check passes). A pragma that fails to build is harm, so such a total keeps the
loop serial, whatever the operator, and the reason says how to keep it.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.deduced_types import declared_scalar
from accls.analysis.model import Obstacle, ObstacleCode, ScalarClass, ScalarFact
from accls.analysis.reduction_refusals import scalar_decl
from accls.frontend import Function, Loop, Ref, SourceFile

__all__ = ["lock_free_atomics", "wide_sums", "wide_type"]

_QUALIFIERS = frozenset({"const", "volatile", "static", "register", "unsigned"})
_COMPLEX = frozenset({"complex", "_Complex", "__complex__"})
# Scalar types over eight bytes.
_WIDE = (
    frozenset({"long", "double"}),
    frozenset({"__float128"}),
    frozenset({"_Float128"}),
    frozenset({"_Float64x"}),
    frozenset({"__int128"}),
    frozenset({"__int128_t"}),
    frozenset({"__uint128_t"}),
)


def wide_type(type_: str, source: SourceFile) -> bool:
    """Whether `type_` (through a macro or typedef) is wider than eight bytes."""
    named = dict(source.macros).get(type_, type_)
    base = source.types.scalar_base(named) or named
    words = set(base.split()) - _QUALIFIERS
    # clang calls libatomic for any complex total, a `float complex` one too.
    return bool(words & _COMPLEX) or frozenset(words) in _WIDE


def wide_sums(
    scalars: tuple[ScalarFact, ...], loop: Loop, fn: Function | None, source: SourceFile
) -> tuple[Obstacle, ...]:
    """An obstacle for each reduction the loop keeps in a type over eight bytes."""
    found = []
    for fact in scalars:
        if fact.cls is not ScalarClass.REDUCTION:
            continue
        decl = scalar_decl(fact.name, fn, source, loop)
        if decl is None or decl.pointers or decl.dims:
            continue
        type_ = declared_scalar(decl, source, fn)
        if wide_type(type_, source):
            found.append(
                Obstacle(
                    code=ObstacleCode.WIDE,
                    line=fact.line,
                    variable=fact.name,
                    message=_why(fact.name, type_, fact.line, "reduction"),
                )
            )
    return tuple(found)


def lock_free_atomics(
    atomic: Mapping[str, list[Ref]], loop: Loop, fn: Function | None, source: SourceFile
) -> dict[str, list[Ref]]:
    """The atomic updates of `atomic` but those into elements over eight bytes.

    A histogram of `long double` bins left out keeps its carried dependence,
    which refuses the loop.
    """
    return {
        name: refs
        for name, refs in atomic.items()
        if (decl := scalar_decl(name, fn, source, loop)) is None
        or not wide_type(decl.type, source)
    }


def _why(name: str, type_: str, line: int, what: str) -> str:
    return (
        f"`{name}` is a `{type_}` total (line {line}): wider than eight bytes, its "
        f"{what} has no lock-free atomic, and clang's build calls libatomic "
        "(it links only with -latomic); a `double` total would keep it"
    )
