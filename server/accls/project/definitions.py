"""One external function of a parsed file, as the index records it for the others."""

from __future__ import annotations

from accls.analysis import (
    PURE_FUNCTIONS,
    Definition,
    ProgramSummaries,
    Summary,
    summarize,
    unsummarised_reason,
)
from accls.analysis.device_kernels import device_kernel
from accls.analysis.errno_calls import errno_effects
from accls.analysis.pointer_slices import function_slices
from accls.frontend import Function, SourceFile
from accls.project.device_marks import device_marks

__all__ = ["define"]


def define(
    fn: Function,
    source: SourceFile,
    program: ProgramSummaries,
    memo: dict[str, Summary | None],
    file: str,
) -> Definition:
    """`fn` of `source` summarised with `program`; `file` as the user knows it."""
    summary = summarize(fn.name, source, PURE_FUNCTIONS, memo, program)
    why = (
        ""
        if summary is not None
        else unsummarised_reason(fn.name, source, PURE_FUNCTIONS, program)
    )
    sets_errno, reads_errno = errno_effects(fn, source, program)
    return Definition(
        name=fn.name,
        file=file,
        line=fn.span.line,
        summary=summary,
        why=why,
        device=device_marks(fn),
        kernel=device_kernel(fn, source),
        slices=function_slices(fn, source) if summary is not None else (),
        allocator=fn.name in source.allocators,
        row_table=fn.name in source.row_tables,
        row_fills=tuple(sorted(at for n, at in source.row_fillers if n == fn.name)),
        row_steady=tuple(sorted(at for n, at in source.row_steady if n == fn.name)),
        sets_errno=sets_errno,
        reads_errno=reads_errno,
    )
