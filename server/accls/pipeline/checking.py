"""Check this text: the one findings check the CLI, the editor and training use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from accls.analysis import FileAnalysis, Finding, ProgramSummaries
from accls.analysis.checks import check_file
from accls.frontend import HeaderContext, SourceFile
from accls.frontend.incremental import IncrementalTree

__all__ = ["check_text"]


def check_text(
    text: str,
    path: str | None = None,
    *,
    include_dirs: Sequence[str] = (),
    context: HeaderContext | None = None,
    tree: IncrementalTree | None = None,
    analyses: Mapping[str, FileAnalysis] | None = None,
    program: ProgramSummaries | None = None,
    source: SourceFile | None = None,
) -> tuple[Finding, ...]:
    """Findings for the pragmas already in `text`, in file order.

    `context` is what the build's preprocessor made of the directives; `tree`
    re-uses an editor's incremental parse of the same text; `analyses` the
    analyses of it already made, by dialect sentinel, with nothing assumed;
    `program` what the project's other files define; `source` the text
    already parsed, when the caller has it.
    """
    return check_file(
        text,
        path,
        include_dirs,
        context,
        tree=tree,
        analyses=analyses,
        program=program,
        source=source,
    )
