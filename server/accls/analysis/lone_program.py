"""What a lone C file with `main` knows of the whole program: its calls, its fields.

A C file that defines `main`, includes no header of its own (no quoted
`#include`), and is analysed without a project (no `--project`, no compile
database, no workspace index: `program` is None) is taken as the
whole program, as `cost_context` takes it: its external functions are called
only from it. Its calls then decide two pointer parameters apart exactly as a
`static` function's do, through `ProgramCalls` with no other file, sealed, and
the same rules (`CallSiteLists._program_wide`: a name whose address is taken,
or that a macro or header names, keeps its calls unknown). Its own stores to
struct pointer fields are all the program's (`field_sets`; a struct handed to a
function it does not define stays unknown there). When a project or an index
says other files exist, their calls and fields, or their absence, decide instead.
"""

from __future__ import annotations

import re

from accls.analysis.field_alias import own_label
from accls.analysis.field_points_to import file_field_facts
from accls.analysis.field_sets import FieldSets, field_sets
from accls.analysis.program import ProgramSummaries
from accls.analysis.remote_calls import ProgramCalls
from accls.frontend import FieldEventKind, SourceFile, is_cpp

__all__ = ["overlap_calls", "program_field_sets"]

# A quoted include names a header of the program's own: the sign of other files
# (whose functions may call this one's with any arguments) when no index says.
_OWN_HEADER = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"', re.MULTILINE)


def _lone(source: SourceFile, program: ProgramSummaries | None) -> bool:
    """Whether `source` is taken as the whole program: a C file with `main`, alone.

    A file that includes a header of its own (`#include "x.h"`) is taken as one
    file of a larger program, even if that header declares none of its functions:
    another file may declare them itself and pass overlapping arguments.
    """
    return (
        program is None
        and source.language == "c"  # C++ reads "c" too: its path tells
        and not is_cpp(source.path)
        and source.function("main") is not None
        and _OWN_HEADER.search(source.text) is None
    )


def overlap_calls(
    source: SourceFile, program: ProgramSummaries | None
) -> ProgramCalls | None:
    """The program's calls for `source`'s overlap proofs; None when unknown."""
    if program is not None:
        return program.calls
    # Not alone with `main`: a library file, or C++ and Fortran (other linkage).
    return ProgramCalls(files=(), sealed=True) if _lone(source, program) else None


def program_field_sets(
    source: SourceFile, program: ProgramSummaries | None
) -> FieldSets | None:
    """The program's field points-to: from an index of every file, or a lone one."""
    lone = _lone(source, program)
    if not lone and (program is None or not program.whole or not program.complete):
        return None
    facts = program.field_facts if program is not None else ()
    stores = any(e.kind is FieldEventKind.STORE for e in source.field_events)
    if not stores and not facts:
        return None
    return field_sets((*facts, *file_field_facts(source, own_label(source))))
