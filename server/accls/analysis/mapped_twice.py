"""ACC208: one construct maps one object under two names (`a = base + 10`).

`#pragma acc parallel loop copyin(a[0:n], base[0:n])` where the program sets
`a` from `base` maps overlapping storage twice: OpenACC stops at run time
("partially present"), OpenMP leaves it unspecified; a host fallback hides it.
Only a visible derivation counts (see `mapped_storage`), and sections that are
the same elements, or disjoint ranges of one buffer, pass. The data clauses of
compute constructs on loops are read, and those of data regions (`acc data`,
`omp target data`) and `enter data` in C and C++.
"""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis.analyze import FileAnalysis
from accls.analysis.data_clauses import clause_sections
from accls.analysis.data_kinds import MAPPED_TWICE
from accls.analysis.device_coherence import function_directives
from accls.analysis.findings import Finding, finding
from accls.analysis.mapped_storage import shared_storage
from accls.frontend import Directive, Function, Loop

__all__ = ["mapped_twice_findings"]

_MOVES = ("copy", "copyin", "copyout", "create", "other")
# Constructs that map data but run nothing: the loops of a data region are
# those it encloses; `enter data` serves no loop of its own.
_DATA = frozenset({"data", "target data"})
_ENTER = frozenset({"enter data", "target enter data"})


def _mapped_twice(
    analysis: FileAnalysis,
    directive: Directive,
    fn: Function | None,
    loops: Sequence[Loop],
) -> Finding | None:
    """ACC208 when the directive's data clauses map one object under two names."""
    sections = [s for s in clause_sections(directive) if s.kind in _MOVES]
    if len(sections) < 2:
        return None
    exact = {
        s.name: "".join(f"[{a}:{b}]" for a, b in s.dims).replace(" ", "")
        for s in sections
        if s.dims
    }
    names = [s.name for s in sections]
    source = analysis.source
    at = directive.span.start_byte if directive.span is not None else None
    found = shared_storage(
        names, fn, source, analysis.program, sections=exact, loops=loops, at=at
    )
    if found is None or (directive.span is None and not loops):
        return None
    return finding(
        MAPPED_TWICE,
        directive.span or loops[0].span,
        var=found.one,
        other=found.two,
        why=found.why,
    )


def mapped_twice_findings(analysis: FileAnalysis, sentinel: str) -> list[Finding]:
    """ACC208 for each construct that maps one object under two names."""
    source = analysis.source
    out: list[Finding] = []
    seen: set[int] = set()  # the loops' own pragmas (OpenMP's may hold `enter data`)
    for loop in source.loops():
        fn = source.function(loop.function)
        for directive in loop.pragmas:
            if directive.dialect != sentinel:
                continue
            if directive.span is not None:
                seen.add(directive.span.start_byte)
            found = _mapped_twice(analysis, directive, fn, (loop,))
            if found is not None:
                out.append(found)
    by_function: dict[str, list[Loop]] | None = None
    for fn in source.functions:
        directives = [
            (pos, d)
            for pos, d in function_directives(source, fn, sentinel)
            if d.name in _DATA | _ENTER and pos not in seen
        ]
        if not directives:
            continue
        if by_function is None:
            by_function = {}
            for loop in source.loops():
                by_function.setdefault(loop.function or "", []).append(loop)
        for pos, directive in directives:
            served = [
                loop
                for loop in by_function.get(fn.name, [])
                if directive.name in _DATA
                and any(
                    r.directive.span is not None and r.directive.span.start_byte == pos
                    for r in loop.regions
                )
            ]
            found = _mapped_twice(analysis, directive, fn, served)
            if found is not None:
                out.append(found)
    return out
