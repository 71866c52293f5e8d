"""Each loop's verdict of a small program: line -> (parallel, reasons joined)."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze
from accls.frontend import parse_source


def verdicts(
    text: str, path: str = "k.cpp", options: AnalysisOptions | None = None
) -> dict[int, tuple[bool, str]]:
    """Line of each loop -> (parallel, its obstacles' messages joined by ' | ')."""
    source = parse_source(dedent(text), path)
    facts = analyze(source, options or AnalysisOptions()).facts
    return {
        f.loop.line: (f.parallel, " | ".join(o.message for o in f.obstacles))
        for f in facts
    }
