"""The command line's call into the hybrid pipeline."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from accls.analysis import AnalysisOptions, FileAnalysis
from accls.cli_settings import backend_settings
from accls.suggest import Suggestion, SuggestOptions

__all__ = ["hybrid_suggestions"]


_warned: set[str] = set()


def hybrid_suggestions(
    text: str,
    path: str,
    analysis: FileAnalysis,
    options: SuggestOptions,
    analysis_options: AnalysisOptions,
    args: argparse.Namespace,
) -> tuple[tuple[Suggestion, ...], dict[int, dict[str, Any]]]:
    """Suggestions and validation from the hybrid pipeline; warnings once a run."""
    from accls.hybrid import suggest_hybrid
    from accls.validation import CompilerSettings

    compiler = (
        None
        if args.no_validate
        else CompilerSettings(cc=args.cc, include_dirs=tuple(args.include))
    )
    result = suggest_hybrid(
        text,
        path,
        options,
        analysis_options,
        backend_settings(args),
        compiler,
        tuple(args.include),
        analysis=analysis,
    )
    for warning in result.warnings:
        if warning not in _warned:
            _warned.add(warning)
            print(f"accls: warning: {warning}", file=sys.stderr)
    return result.suggestions, result.validation
