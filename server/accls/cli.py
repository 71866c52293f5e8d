"""The `accls` command line: suggest, annotate, and (later) the language server."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from accls import __version__
from accls.analysis import AnalysisOptions, analyze
from accls.frontend import parse_source
from accls.inputs import InputError, looks_like_c, read_source
from accls.report import suggestion_json, write_text
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with a one-line message."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"accls: error: {message}\n")


def _common(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--model",
        choices=[d.value for d in Dialect],
        default="openacc",
        help="programming model of the pragmas (default: openacc)",
    )
    sub.add_argument(
        "--target",
        choices=[t.value for t in Target],
        default=None,
        help="where loops run: cpu or gpu (default: gpu for openacc, cpu for openmp)",
    )
    sub.add_argument(
        "--kernels",
        action="store_true",
        help="OpenACC: use `kernels loop` instead of `parallel loop`",
    )
    sub.add_argument(
        "--assume-no-alias",
        action="store_true",
        help="assume pointer arguments never overlap (as if `restrict`)",
    )
    sub.add_argument(
        "-I",
        dest="include",
        action="append",
        default=[],
        metavar="DIR",
        help="where to look for headers that define macros",
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="accls",
        description="Suggest and check OpenACC/OpenMP pragmas for C loops.",
    )
    parser.add_argument("--version", action="version", version=f"accls {__version__}")
    subs = parser.add_subparsers(dest="command", parser_class=_Parser)
    suggest = subs.add_parser("suggest", help="print a pragma (or a refusal) per loop")
    _common(suggest)
    suggest.add_argument("--format", choices=["text", "json"], default="text")
    suggest.add_argument("files", nargs="+", metavar="FILE")
    annotate = subs.add_parser("annotate", help="write the file with pragmas inserted")
    _common(annotate)
    annotate.add_argument("file", metavar="FILE")
    out = annotate.add_mutually_exclusive_group()
    out.add_argument(
        "-o", "--output", metavar="OUT", help="write here (default: stdout)"
    )
    out.add_argument("--in-place", action="store_true", help="overwrite FILE")
    return parser


def _options(args: argparse.Namespace) -> tuple[SuggestOptions, AnalysisOptions]:
    model = Dialect(args.model)
    default = Target.GPU if model is Dialect.OPENACC else Target.CPU
    target = Target(args.target) if args.target else default
    return (
        SuggestOptions(model=model, target=target, kernels=args.kernels),
        AnalysisOptions(assume_no_alias=args.assume_no_alias, dialect=model.sentinel),
    )


def _suggest_one(
    path: str, args: argparse.Namespace
) -> tuple[str, tuple[Suggestion, ...]]:
    text = read_source(path)
    source = parse_source(text, path, args.include)
    warning = looks_like_c(
        path,
        text,
        sum(e.end_byte - e.start_byte for e in source.errors),
        len(source.nests),
    )
    if warning is not None and not source.nests and source.errors:
        raise InputError(warning)
    if warning is not None:
        print(f"accls: warning: {warning}", file=sys.stderr)
    opts, analysis_opts = _options(args)
    return text, suggest_file(analyze(source, analysis_opts), opts)


def _run_suggest(args: argparse.Namespace) -> int:
    items: list[tuple[str, Suggestion]] = []
    failed = False
    for path in args.files:
        try:
            _, suggestions = _suggest_one(path, args)
        except InputError as exc:
            print(f"accls: error: {exc}", file=sys.stderr)
            failed = True
            continue
        items.extend((path, s) for s in suggestions)
    if args.format == "json":
        json.dump([suggestion_json(p, s) for p, s in items], sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif items or not failed:
        write_text(sys.stdout, items)
    return 2 if failed else 0


def _run_annotate(args: argparse.Namespace) -> int:
    path = args.file
    text, suggestions = _suggest_one(path, args)
    result = annotate_text(text, suggestions)
    target = path if args.in_place else args.output
    if target is None:
        sys.stdout.write(result)
        return 0
    if not args.in_place and os.path.exists(target) and os.path.samefile(target, path):
        raise InputError(
            f"{target}: is the input file; pass --in-place to overwrite it"
        )
    try:
        with open(
            target, "w", encoding="utf-8", errors="surrogateescape", newline=""
        ) as fh:
            fh.write(result)
    except OSError as exc:
        raise InputError(f"{target}: cannot write: {exc.strerror or exc}") from None
    count = sum(1 for s in suggestions if s.pragma is not None and s.existing is None)
    print(f"accls: {count} pragma(s) inserted into {target}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    try:
        if args.command == "suggest":
            return _run_suggest(args)
        if args.command == "annotate":
            return _run_annotate(args)
    except InputError as exc:
        print(f"accls: error: {exc}", file=sys.stderr)
        return 2
    except RecursionError:
        print(
            "accls: error: the input is nested too deeply to analyse", file=sys.stderr
        )
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    parser.print_help(sys.stderr)
    return 2
