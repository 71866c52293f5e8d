"""The functions of the project's headers (`static inline`), as the program sees them.

A header's `static void zeroReal3(real3 a)` is compiled into every file that
includes it: its calls are calls of a function of the program, not unknown
ones. Its summary joins the other files' under its own place (`mytype.h:20`),
and it shadows another file's function of the same name, as the compiler does.
"""

from __future__ import annotations

from accls.analysis.program import Definition, ProgramSummaries
from accls.analysis.summaries import Summary, summarize, unsummarised_reason
from accls.frontend import SourceFile

__all__ = ["with_headers"]


def with_headers(
    source: SourceFile, program: ProgramSummaries | None, pure: frozenset[str]
) -> ProgramSummaries | None:
    """`program` with the summaries of the header functions `source` calls."""
    headers = source.headers
    if headers is None:
        return program
    called = {c for fn in source.functions for c in fn.calls}
    names = sorted(
        n for n in called if headers.function(n) and source.function(n) is None
    )
    if not names:
        return program
    memo: dict[str, Summary | None] = {}
    found: list[Definition] = []
    for name in names:
        fn = headers.function(name)
        if fn is None:
            continue
        summary = summarize(name, headers, pure, memo, program)
        file, _, line = headers.place(fn.span.line).rpartition(":")
        found.append(
            Definition(
                name=name,
                file=file,
                line=int(line),
                summary=summary,
                why=""
                if summary is not None
                else unsummarised_reason(name, headers, pure, program),
            )
        )
    shadowed = set(names)
    kept = tuple(
        d for d in (program.definitions if program else ()) if d.name not in shadowed
    )
    if program is None:
        return ProgramSummaries((*kept, *found))
    return ProgramSummaries(
        (*kept, *found),
        program.complete,
        program.field_facts,
        program.whole,
        called=program.called,
        overlaps=program.overlaps,
        global_links=program.global_links,
        calls=program.calls,
    )
