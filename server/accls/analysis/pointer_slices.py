"""The fixed elements a callee touches through a pointer parameter, in any file.

callee_slices reads a function of the analysed file: `norm3(const double *p)`
using only `p[0]` to `p[2]` reads exactly those elements. A function of another
file of the program reaches the analysis as a summary (`program.Definition`),
which carries the same fact as a `PointerSlice` per such parameter, computed
by the workspace index from that file's text, with the element's scalar type
spelled through that file's typedefs.

A callee the file or its headers define is read from the file; another file's
only when the program defines the name once and the call passes as many
arguments as the definition takes. Anything else has no slice, so the call
stays a read or write of the whole object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from accls.analysis.callee_slices import element_type, function_slice, parameter_slice
from accls.frontend import AccessKind, Call, Function, SourceFile

if TYPE_CHECKING:
    from accls.analysis.program import ProgramSummaries

__all__ = [
    "PointerSlice",
    "callee_slice",
    "function_slices",
    "known_callee",
    "program_slice",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class PointerSlice:
    """Parameter `index` is used only as the elements `p[low]` to `p[high]`."""

    index: int
    arity: int  # the function's number of parameters
    written: bool  # an element is written (else only read)
    low: int
    high: int
    element: str  # the scalar of the elements (`double` for `real_t *p`)

    @property
    def kind(self) -> AccessKind:
        """UPDATE when the callee writes an element, else READ."""
        return AccessKind.UPDATE if self.written else AccessKind.READ


def function_slices(fn: Function, source: SourceFile) -> tuple[PointerSlice, ...]:
    """Every pointer parameter of `fn` that it uses only at literal offsets."""
    if source.language != "c":
        return ()  # Fortran passes by reference: a dummy is no pointer
    out: list[PointerSlice] = []
    for index, param in enumerate(fn.params):
        found = function_slice(fn, index, source)
        if found is None:
            continue
        kind, low, high = found
        out.append(
            PointerSlice(
                index=index,
                arity=len(fn.params),
                written=kind is AccessKind.UPDATE,
                low=low,
                high=high,
                element=element_type(param.type, source.types),
            )
        )
    return tuple(out)


def _foreign(
    name: str, source: SourceFile, program: ProgramSummaries | None
) -> tuple[PointerSlice, ...] | None:
    """The slices of the other file's one definition of `name`, or None."""
    if program is None or source.function(name) is not None:
        return None
    if source.headers is not None and source.headers.function(name):
        return None  # a header's `static inline` definition is what runs
    found = program.only(name)
    if found is None or found.summary is None:
        return None
    return found.slices


def program_slice(
    name: str,
    index: int,
    arity: int,
    source: SourceFile,
    program: ProgramSummaries | None,
) -> PointerSlice | None:
    """The slice of parameter `index` of another file's `name`, called with `arity`."""
    for one in _foreign(name, source, program) or ():
        if one.index == index and one.arity == arity:
            return one
    return None


def known_callee(
    call: Call, source: SourceFile, program: ProgramSummaries | None
) -> bool:
    """Whether `call.name` is a function of the file, or another file's one."""
    return source.function(call.name) is not None or bool(
        _foreign(call.name, source, program)
    )


def callee_slice(
    call: Call, index: int, source: SourceFile, program: ProgramSummaries | None
) -> PointerSlice | None:
    """How the callee of `call` uses its pointer parameter `index`, or None."""
    fn = source.function(call.name)
    if fn is not None:
        found = parameter_slice(call, index, source)
        if found is None:
            return None
        kind, low, high = found
        return PointerSlice(
            index=index,
            arity=len(fn.params),
            written=kind is AccessKind.UPDATE,
            low=low,
            high=high,
            element=element_type(fn.params[index].type, source.types),
        )
    return program_slice(call.name, index, len(call.args), source, program)
