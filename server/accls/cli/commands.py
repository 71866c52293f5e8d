"""The `accls` command line: suggest, annotate, and (later) the language server."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from accls import __version__
from accls.analysis import ProgramSummaries
from accls.cli.options import (
    add_backend_options,
    add_build_options,
    add_suggest_options,
    backend_settings,
    settings_from_args,
)
from accls.cli.report import suggestion_json, unread_loop_json, write_text
from accls.files import (
    BOM,
    InputError,
    WriteError,
    looks_like_c,
    other_language,
    read_source,
    read_source_bytes,
    replace_file,
    write_stdout,
)
from accls.frontend import HeaderContext, Span, parse_source
from accls.hybrid import BackendPool
from accls.pipeline import (
    OnceSink,
    SuggestResult,
    analysis_options,
    check_text,
    suggest_text,
)
from accls.project import (
    BuildFlags,
    ProjectIndex,
    build_context,
    default_cache_dir,
    find_database,
)
from accls.server.serve import add_server_options, serve, wants_server
from accls.settings import Settings
from accls.suggest import Suggestion, SuggestOptions
from accls.suggest.annotate import annotate_text
from accls.suggest.backends import BackendKind
from accls.suggest.inductions import rewrite_all
from accls.suggest.restrict import restrict_all
from accls.validation import Validation

__all__ = ["main"]


# A write to stdout that fails for want of room (`>/dev/full`, `ulimit -f`).
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO})


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with a one-line message."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"accls: error: {message}\n")


def _build_flags(args: argparse.Namespace) -> BuildFlags:
    return BuildFlags(
        cc=getattr(args, "cc", "gcc"),
        include_dirs=tuple(args.include),
        defines=tuple(args.defines),
        std=args.std,
        database=args.compile_commands,
    )


def _context(path: str, text: str, args: argparse.Namespace) -> HeaderContext | None:
    """The build's context of a file; warnings about it go to stderr."""
    if args.no_preprocess:
        return None
    build = _build_flags(args)
    context, warnings = build_context(text, path, build)
    for warning in warnings:
        print(f"accls: warning: {path}: {warning}", file=sys.stderr)
    return context


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="accls",
        description="Suggest and check OpenACC/OpenMP pragmas for C loops.",
    )
    parser.add_argument("--version", action="version", version=f"accls {__version__}")
    add_server_options(parser)
    subs = parser.add_subparsers(dest="command", parser_class=_Parser)
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
    check.add_argument("files", nargs="+", metavar="FILE")
    verify = subs.add_parser(
        "verify",
        help="build and run FILE serially and with the suggested OpenMP pragmas, and "
        "compare the outputs (runs your program: opt-in, sandboxed)",
    )
    verify.add_argument("file", metavar="FILE")
    verify.add_argument("--model", choices=["openmp"], default="openmp")
    verify.add_argument("--threads", default="1,2,4", help="thread counts (1,2,4)")
    verify.add_argument(
        "--tolerance",
        type=float,
        default=1e-9,
        help="relative tolerance for numbers in outputs",
    )
    verify.add_argument("--cpu-seconds", type=int, default=10)
    verify.add_argument("--memory-mb", type=int, default=2048)
    verify.add_argument("--timeout", type=float, default=30.0, help="wall clock, s")
    verify.add_argument("--cc", default="gcc")
    verify.add_argument("--cflags", default="", help="extra compiler flags, one string")
    verify.add_argument(
        "-I", dest="include", action="append", default=[], metavar="DIR"
    )
    verify.add_argument("--stdin", default=None, metavar="FILE")
    verify.add_argument(
        "--data",
        nargs="*",
        default=[],
        metavar="FILE",
        help="input files copied into the run folder",
    )
    verify.add_argument(
        "--no-sandbox",
        action="store_true",
        help="where bubblewrap is missing, run the program unconfined (only limits)",
    )
    verify.epilog = "Arguments for the program go after `--`: FILE [OPTIONS] -- ARGS"
    _feedback_parser(subs)
    return parser


def _feedback_parser(subs: argparse._SubParsersAction[_Parser]) -> None:
    feedback = subs.add_parser(
        "feedback", help="the local store of applied suggestions (opt-in, never sent)"
    )
    actions = feedback.add_subparsers(dest="feedback_command", parser_class=_Parser)
    export = actions.add_parser("export", help="write the store as JSONL")
    export.add_argument("--db", metavar="PATH", help="database (default: the store)")
    export.add_argument(
        "-o", "--output", metavar="FILE", help="write here (default: stdout)"
    )
    export.add_argument("--force", action="store_true", help="overwrite FILE")
    actions.add_parser("path", help="print where the store lives")


def _run_feedback(args: argparse.Namespace) -> int:
    from pathlib import Path

    from accls.feedback import FeedbackError, FeedbackStore, default_path

    if args.feedback_command == "path":
        print(default_path())
        return 0
    if args.feedback_command != "export":
        print("accls: error: feedback needs a command: export or path", file=sys.stderr)
        return 2
    db = Path(args.db) if args.db else default_path()
    if not db.exists():
        # Exporting must not create an empty database as a side effect.
        raise InputError(f"{db}: no feedback database (nothing recorded yet)")
    if args.output and os.path.exists(args.output):
        if os.path.samefile(args.output, db):
            raise InputError(f"{args.output}: is the feedback database itself")
        if not args.force:
            raise InputError(f"{args.output}: exists; pass --force to overwrite it")
    buffer = io.StringIO()
    try:
        with FeedbackStore(db, read_only=True) as store:
            count = store.export_jsonl(buffer)
    except FeedbackError as exc:
        raise InputError(str(exc)) from None
    lines = buffer.getvalue()
    if args.output is None:
        sys.stdout.write(lines)
    else:
        replace_file(args.output, lines.encode("utf-8"))
    print(f"accls: {count} feedback record(s) exported", file=sys.stderr)
    return 0


def _run_check(args: argparse.Namespace) -> int:
    from accls.analysis.findings import Finding
    from accls.cli.findings_output import exit_code, finding_json, write_findings_text

    items: list[tuple[str, Finding]] = []
    failed = False
    for path in args.files:
        language = other_language(path)
        try:
            if language is not None:
                # Reading C++ as C would miss its loops and pass the file silently.
                raise InputError(
                    f"{path}: not checked: {language} is not supported yet"
                )
            text = read_source(path)
        except InputError as exc:
            print(f"accls: error: {exc}", file=sys.stderr)
            failed = True
            continue
        context = _context(path, text, args)
        found = check_text(text, path, include_dirs=args.include, context=context)
        items.extend((path, f) for f in found)
    if args.format == "json":
        json.dump([finding_json(p, f) for p, f in items], sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif items or not failed:
        write_findings_text(sys.stdout, items)
    return 2 if failed else exit_code(f for _, f in items)


def _run_verify(args: argparse.Namespace) -> int:
    import shlex

    from accls.validation.run import VerifySettings, render_report, verify

    try:
        threads = tuple(int(t) for t in args.threads.split(",") if t.strip())
    except ValueError:
        raise InputError(f"--threads: not a list of numbers: {args.threads}") from None
    try:
        cflags = tuple(shlex.split(args.cflags))
    except ValueError as exc:
        raise InputError(f"--cflags: cannot split {args.cflags!r}: {exc}") from None
    settings = VerifySettings(
        threads=threads,
        tolerance=args.tolerance,
        cpu_s=args.cpu_seconds,
        memory_mb=args.memory_mb,
        timeout_s=args.timeout,
        cc=args.cc,
        cflags=cflags,
        include_dirs=tuple(args.include),
        args=tuple(args.program_args),
        stdin_path=args.stdin,
        data=tuple(args.data),
        sandbox=not args.no_sandbox,
    )
    report = verify(args.file, settings)
    sys.stdout.write(render_report(report) + "\n")
    if report.equivalent is None:
        return 3
    return 0 if report.equivalent else 1


def _settings(args: argparse.Namespace) -> Settings:
    """The settings of `suggest` and `annotate` from their flags."""
    if args.backend != BackendKind.ANALYSIS.value:
        backend_settings(args)  # raises for a bad -n, only where it is used
    return settings_from_args(args)


def _stderr_warning(message: str) -> None:
    print(f"accls: warning: {message}", file=sys.stderr)


@dataclass(frozen=True, slots=True)
class _Run:
    """What one run of a command owns: its warnings (each said once), its models."""

    warnings: OnceSink = field(default_factory=lambda: OnceSink(_stderr_warning))
    backends: BackendPool = field(default_factory=BackendPool)
    # The project indexes of this run, by folder and compile database.
    indexes: dict[tuple[str, str | None], ProjectIndex] = field(default_factory=dict)


def _program(path: str, args: argparse.Namespace, run: _Run) -> ProgramSummaries | None:
    """What the other files of `path`'s project define: `--project` or its database."""
    if getattr(args, "no_index", False):
        return None
    root = getattr(args, "project", None)
    database = args.compile_commands or find_database(path)
    if root is None and database is None:
        return None
    if root is not None and args.compile_commands is None:
        candidate = os.path.join(root, "compile_commands.json")
        database = candidate if os.path.isfile(candidate) else None
    if root is None:
        if not os.path.isfile(str(database)):
            return None  # the build's context already said it cannot be read
        root = os.path.dirname(os.path.abspath(str(database)))
    if not os.path.isdir(root):
        raise InputError(f"--project {root}: not a folder")
    key = (os.path.abspath(root), database)
    index = run.indexes.get(key)
    if index is None:
        index = ProjectIndex(
            root,
            build=_build_flags(args),
            database=database,
            cache_dir=args.index_cache or default_cache_dir(),
        )
        index.build()
        run.indexes[key] = index
    return index.program_for(path)


def _suggest_one(
    path: str, args: argparse.Namespace, run: _Run, *, every_loop: bool = False
) -> tuple[str, SuggestResult, Settings]:
    """The text suggested for (after rewrites), its suggestions, and the settings.

    With `every_loop`, one suggestion for each loop that was read.
    """
    text = read_source(path)
    context = _context(path, text, args)
    if getattr(args, "rewrite_inductions", False):
        assumed = analysis_options(_settings(args))
        text, done = rewrite_all(text, assumed, path, args.include, context)
        for rewrite in done:
            print(f"accls: rewrote {rewrite.summary}", file=sys.stderr)
    if getattr(args, "add_restrict", False):
        assumed = analysis_options(_settings(args))
        text, promised = restrict_all(text, assumed, path, args.include, context)
        for promise in promised:
            print(f"accls: promised {promise.summary}", file=sys.stderr)
    source = parse_source(text, path, args.include, context=context)
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
    # Here, after the file's own warnings, as the check of -n always came.
    settings = _settings(args)
    result = suggest_text(
        text,
        path,
        settings,
        source=source,
        every_loop=every_loop,
        backends=run.backends,
        warnings=run.warnings,
        program=_program(path, args, run),
    )
    return text, result, settings


def _run_suggest(args: argparse.Namespace) -> int:
    run = _Run()
    items: list[tuple[str, Suggestion]] = []
    checked: dict[tuple[str, int], Validation] = {}
    unread: dict[str, tuple[tuple[Span, str], ...]] = {}
    options: SuggestOptions | None = None
    failed = False
    for path in args.files:
        try:
            _, result, settings = _suggest_one(
                path, args, run, every_loop=args.format == "json"
            )
        except InputError as exc:
            print(f"accls: error: {exc}", file=sys.stderr)
            failed = True
            continue
        unread[path] = result.unread
        options = settings.suggest_options
        items.extend((path, s) for s in result.suggestions)
        checked.update({(path, key): v for key, v in result.validation.items()})
    if args.format == "json":
        objects = _json_objects(items, checked, unread, options)
        json.dump(objects, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif items or not failed:
        write_text(sys.stdout, items)
    return 2 if failed else 0


def _json_objects(
    items: list[tuple[str, Suggestion]],
    checked: dict[tuple[str, int], Validation],
    unread: dict[str, tuple[tuple[Span, str], ...]],
    opts: SuggestOptions | None,
) -> list[dict[str, Any]]:
    """One object per loop of each file, unparsed ones included, in file order.

    `opts` are those of the files read; None only when none was.
    """
    lines: dict[str, dict[int, int]] = {}
    for p, s in items:
        lines.setdefault(p, {})[s.loop.id] = s.loop.line
    objects: list[dict[str, Any]] = []
    for path, spans in unread.items():
        assert opts is not None  # a file was read
        mine = [
            suggestion_json(p, s, checked.get((p, s.loop.id)), lines[p])
            for p, s in items
            if p == path
        ]
        mine.extend(unread_loop_json(path, span, opts, why) for span, why in spans)
        objects.extend(sorted(mine, key=lambda o: (o["line"], o["column"])))
    return objects


def _run_annotate(args: argparse.Namespace) -> int:
    path = args.file
    text, suggested, _ = _suggest_one(path, args, _Run())
    suggestions = suggested.suggestions
    result = annotate_text(text, suggestions)
    if read_source_bytes(path).startswith(BOM.encode()):
        result = BOM + result
    data = result.encode("utf-8", errors="surrogateescape")
    target = path if args.in_place else args.output
    if target is None:
        write_stdout(data)
        return 0
    if not args.in_place and os.path.exists(target) and os.path.samefile(target, path):
        raise InputError(
            f"{target}: is the input file; pass --in-place to overwrite it"
        )
    replace_file(target, data)
    count = sum(1 for s in suggestions if s.pragma is not None and s.existing is None)
    print(f"accls: {count} pragma(s) inserted into {target}", file=sys.stderr)
    return 0


def _output_failed(exc: OSError) -> int:
    """Report a failed write of the output (full disk, file size limit)."""
    print(
        f"accls: error: cannot write the output: {exc.strerror or exc}",
        file=sys.stderr,
    )
    # The interpreter flushes stdout again at exit; give it somewhere to go.
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 2


def _buffered_stdout() -> None:
    """Give an unbuffered stdout (`-u`, PYTHONUNBUFFERED) a buffer again.

    Text written straight to a raw file ignores a short write, so output cut
    by `ulimit -f` would be lost without an error; a buffer retries and raises.
    """
    stdout = sys.stdout
    raw = getattr(stdout, "buffer", None)
    if (
        stdout is sys.__stdout__
        and isinstance(stdout, io.TextIOWrapper)
        and isinstance(raw, io.FileIO)
    ):
        fd = io.FileIO(raw.fileno(), "w", closefd=False)
        sys.stdout = io.TextIOWrapper(
            io.BufferedWriter(fd),
            encoding=stdout.encoding,
            errors=stdout.errors,
            line_buffering=stdout.line_buffering,
        )


def _dispatch(args: argparse.Namespace) -> int | None:
    """Run the chosen command; None when there is none."""
    commands = {
        "suggest": _run_suggest,
        "annotate": _run_annotate,
        "check": _run_check,
        "verify": _run_verify,
        "feedback": _run_feedback,
    }
    run = commands.get(args.command)
    return None if run is None else run(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # `verify FILE [OPTIONS] -- ARGS`: what follows `--` is the program's; the
    # options before it, FILE's included, are parsed wherever they stand.
    program_args: list[str] = []
    command = next((a for a in argv if not a.startswith("-")), None)
    if command == "verify" and "--" in argv:
        cut = argv.index("--")
        argv, program_args = argv[:cut], argv[cut + 1 :]
    _buffered_stdout()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        # --help and --version print before they exit: their output may fail too.
        try:
            sys.stdout.flush()
        except OSError as error:
            if error.errno in _OUTPUT_ERRNOS:
                raise SystemExit(_output_failed(error)) from None
            raise
        raise exc from None
    args.program_args = program_args
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    if wants_server(args):
        if args.command is not None:
            parser.error("--stdio/--tcp start the language server: drop the command")
        return serve(args)
    try:
        code = _dispatch(args)
        if code is not None:
            sys.stdout.flush()
            return code
    except (InputError, WriteError) as exc:
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
    except OSError as exc:
        if exc.errno in _OUTPUT_ERRNOS:
            return _output_failed(exc)
        raise
    parser.print_help(sys.stderr)
    return 2
