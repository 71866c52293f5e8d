"""The one pipeline: suggest for this text, check this text.

Above suggest/, validation/ and hybrid/; below the CLI and the language server.
"""

from accls.pipeline.bench import (
    BenchReport,
    bench_file,
    render_bench,
)
from accls.pipeline.checking import check_text
from accls.pipeline.hoisting import HoistOutcome, annotate_hoisted, hoist_problem
from accls.pipeline.lifetimes import (
    LifetimeOutcome,
    annotate_lifetimes,
    kernels_regions_checked,
    lifetime_problem,
)
from accls.pipeline.sinks import OnceSink, WarningSink, discard
from accls.pipeline.suggesting import (
    SuggestResult,
    analysis_options,
    compiler_settings,
    estimates_for,
    profitable_only,
    suggest_text,
)
from accls.pipeline.whole_file import whole_file_passes, with_whole_file

__all__ = [
    "BenchReport",
    "HoistOutcome",
    "LifetimeOutcome",
    "OnceSink",
    "SuggestResult",
    "WarningSink",
    "analysis_options",
    "annotate_hoisted",
    "annotate_lifetimes",
    "bench_file",
    "check_text",
    "compiler_settings",
    "discard",
    "estimates_for",
    "hoist_problem",
    "kernels_regions_checked",
    "lifetime_problem",
    "profitable_only",
    "render_bench",
    "suggest_text",
    "whole_file_passes",
    "with_whole_file",
]
