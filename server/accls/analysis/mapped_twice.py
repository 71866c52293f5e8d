"""ACC208: one construct maps one object under two names (`a = base + 10`).

`#pragma acc parallel loop copyin(a[0:n], base[0:n])` where the program sets
`a` from `base` maps overlapping storage twice: OpenACC stops at run time
("partially present"), OpenMP leaves it unspecified; a host fallback hides it.
Only a visible derivation counts (see `mapped_storage`), and sections that are
the same elements, or disjoint ranges of one buffer, pass. The data clauses of
compute constructs on loops are read; those of data regions are not.
"""

from __future__ import annotations

from accls.analysis.analyze import FileAnalysis
from accls.analysis.data_clauses import clause_sections
from accls.analysis.data_kinds import MAPPED_TWICE
from accls.analysis.findings import Finding, finding
from accls.analysis.mapped_storage import shared_storage

__all__ = ["mapped_twice_findings"]

_MOVES = ("copy", "copyin", "copyout", "create", "other")


def mapped_twice_findings(analysis: FileAnalysis, sentinel: str) -> list[Finding]:
    """ACC208 for each compute construct that maps one object under two names."""
    source = analysis.source
    out: list[Finding] = []
    for loop in source.loops():
        fn = source.function(loop.function)
        for directive in loop.pragmas:
            if directive.dialect != sentinel:
                continue
            sections = [s for s in clause_sections(directive) if s.kind in _MOVES]
            if len(sections) < 2:
                continue
            exact = {
                s.name: "".join(f"[{a}:{b}]" for a, b in s.dims).replace(" ", "")
                for s in sections
                if s.dims
            }
            names = [s.name for s in sections]
            found = shared_storage(
                names, fn, source, analysis.program, sections=exact, loops=(loop,)
            )
            if found is None:
                continue
            out.append(
                finding(
                    MAPPED_TWICE,
                    directive.span or loop.span,
                    var=found.one,
                    other=found.two,
                    why=found.why,
                )
            )
    return out
