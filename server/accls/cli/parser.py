"""The command line's parser: every command, its options and their help."""

from __future__ import annotations

import argparse

from accls import __version__
from accls.cli.options import (
    add_backend_options,
    add_build_options,
    add_index_options,
    add_suggest_options,
)
from accls.cli.report_command import add_report_parser
from accls.server.serve import add_server_options

__all__ = ["Parser", "build_parser"]


class Parser(argparse.ArgumentParser):
    """argparse that exits 2 with a one-line message."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """Exit 2 with `accls: error: MESSAGE`."""
        self.exit(2, f"accls: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command."""
    parser = Parser(
        prog="accls",
        description="Suggest and check OpenACC/OpenMP pragmas for C loops.",
    )
    parser.add_argument("--version", action="version", version=f"accls {__version__}")
    add_server_options(parser)
    subs = parser.add_subparsers(dest="command", parser_class=Parser)
    suggest = subs.add_parser("suggest", help="print a pragma (or a refusal) per loop")
    add_suggest_options(suggest)
    add_backend_options(suggest)
    suggest.add_argument("--format", choices=["text", "json"], default="text")
    suggest.add_argument("files", nargs="+", metavar="FILE")
    annotate = subs.add_parser("annotate", help="write the file with pragmas inserted")
    add_suggest_options(annotate)
    add_backend_options(annotate)
    annotate.add_argument("file", metavar="FILE")
    out = annotate.add_mutually_exclusive_group()
    out.add_argument(
        "-o", "--output", metavar="OUT", help="write here (default: stdout)"
    )
    out.add_argument("--in-place", action="store_true", help="overwrite FILE")
    annotate.add_argument(
        "--all",
        action="store_true",
        help="insert every safe pragma, also those the cost model expects to run "
        "slower in parallel (small loops, loops only called from parallel code)",
    )
    annotate.add_argument(
        "--no-hoist",
        action="store_true",
        help="give each parallel loop its own `parallel for`, also inside sequential "
        "loops (by default OpenMP CPU output opens one region around such a loop, "
        "with `omp for` inside, when that is provably the same program)",
    )
    annotate.add_argument(
        "--no-lifetimes",
        action="store_true",
        help="let each offloaded kernel move its own arrays (by default, arrays that "
        "a function keeps using across calls of kernel functions stay on the device "
        "from the first call to the last: `enter data`/`exit data`, `update` where "
        "host code reads or writes them, checked as a whole)",
    )
    annotate.add_argument(
        "--rewrite-inductions",
        action="store_true",
        help="also rewrite counters such as `tmp[t++]` in closed form (`tmp[t + i]`, "
        "`t` set after the loop) where that makes the loop parallel",
    )
    annotate.add_argument(
        "--add-restrict",
        action="store_true",
        help="also declare pointer parameters `restrict` where aliasing alone keeps "
        "a loop serial: a promise that they never refer to overlapping memory while "
        "the function runs (a caller passing overlapping buffers breaks the program)",
    )
    check = subs.add_parser(
        "check", help="report races and data-movement bugs in the pragmas of FILEs"
    )
    check.add_argument("--format", choices=["text", "json"], default="text")
    check.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    check.add_argument("--cc", default="gcc", help="the preprocessor's compiler")
    add_build_options(check)
    add_index_options(check)
    check.add_argument("files", nargs="+", metavar="FILE")
    verify = subs.add_parser(
        "verify",
        help="build and run FILE serially and with the suggested OpenMP pragmas, and "
        "compare the outputs (runs your program: opt-in, sandboxed)",
    )
    _run_options(verify)
    verify.epilog = "Arguments for the program go after `--`: FILE [OPTIONS] -- ARGS"
    bench = subs.add_parser(
        "bench",
        help="time FILE serially and as `annotate` writes it, at each thread count "
        "(runs your program: opt-in, sandboxed like verify)",
    )
    _run_options(bench, threads="1,2")
    bench.add_argument("--repeats", type=int, default=3, help="runs per build (3)")
    bench.add_argument(
        "--per-loop",
        action="store_true",
        help="also time each candidate pragma on its own",
    )
    bench.add_argument(
        "--budget",
        type=float,
        default=600.0,
        metavar="S",
        help="seconds for --per-loop before it stops (600)",
    )
    bench.add_argument(
        "--all", action="store_true", help="time every safe pragma (as annotate --all)"
    )
    bench.add_argument("--no-hoist", action="store_true", help="as annotate --no-hoist")
    bench.add_argument(
        "--ignore",
        default="",
        metavar="REGEX",
        help="stdout lines matching REGEX are not compared (timings, rates)",
    )
    bench.add_argument(
        "--no-record",
        action="store_true",
        help="do not append the measurements to the local store",
    )
    bench.epilog = "Arguments for the program go after `--`: FILE [OPTIONS] -- ARGS"
    _feedback_parser(subs)
    add_report_parser(subs)
    return parser


def _feedback_parser(subs: argparse._SubParsersAction[Parser]) -> None:
    feedback = subs.add_parser(
        "feedback", help="the local store of applied suggestions (opt-in, never sent)"
    )
    actions = feedback.add_subparsers(dest="feedback_command", parser_class=Parser)
    export = actions.add_parser("export", help="write the store as JSONL")
    export.add_argument("--db", metavar="PATH", help="database (default: the store)")
    export.add_argument(
        "-o", "--output", metavar="FILE", help="write here (default: stdout)"
    )
    export.add_argument("--force", action="store_true", help="overwrite FILE")
    actions.add_parser("path", help="print where the store lives")


def _run_options(sub: Parser, threads: str = "1,2,4") -> None:
    """The options of the commands that build and run the user's program."""
    sub.add_argument("file", metavar="FILE")
    sub.add_argument("--model", choices=["openmp"], default="openmp")
    sub.add_argument("--threads", default=threads, help=f"thread counts ({threads})")
    sub.add_argument(
        "--tolerance",
        type=float,
        default=1e-9,
        help="relative tolerance for numbers in outputs",
    )
    sub.add_argument("--cpu-seconds", type=int, default=10)
    sub.add_argument("--memory-mb", type=int, default=2048)
    sub.add_argument("--timeout", type=float, default=30.0, help="wall clock, s")
    sub.add_argument("--cc", default="gcc")
    sub.add_argument("--cflags", default="", help="extra compiler flags, one string")
    sub.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    sub.add_argument("--stdin", default=None, metavar="FILE")
    sub.add_argument(
        "--data",
        nargs="*",
        default=[],
        metavar="FILE",
        help="input files copied into the run folder",
    )
    sub.add_argument(
        "--no-sandbox",
        action="store_true",
        help="where bubblewrap is missing, run the program unconfined (only limits)",
    )
