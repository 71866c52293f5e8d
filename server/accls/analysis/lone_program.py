"""The calls a pointer-overlap proof may read: the project's, or a lone file's own.

A C file that defines `main` and is analysed without a project (no `--project`,
no compile database, no workspace index: `program` is None) is taken as the
whole program, as `cost_context` takes it: its external functions are called
only from it. Its calls then decide two pointer parameters apart exactly as a
`static` function's do, through `ProgramCalls` with no other file, sealed, and
the same rules (`CallSiteLists._program_wide`: a name whose address is taken,
or that a macro or header names, keeps its calls unknown). When a project or an
index says other files exist, their calls, or their absence, decide instead.
"""

from __future__ import annotations

from accls.analysis.program import ProgramSummaries
from accls.analysis.remote_calls import ProgramCalls
from accls.frontend import SourceFile

__all__ = ["overlap_calls"]


def overlap_calls(
    source: SourceFile, program: ProgramSummaries | None
) -> ProgramCalls | None:
    """The program's calls for `source`'s overlap proofs; None when unknown."""
    if program is not None:
        return program.calls
    if source.language != "c" or source.function("main") is None:
        return None  # a library file, or C++ and Fortran (other names, linkage)
    return ProgramCalls(files=(), sealed=True)
