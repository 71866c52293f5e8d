"""The `accls` entry point: parse, run the command, turn errors into exit codes."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import sys
from collections.abc import Sequence

from accls.cli.bench_command import run_bench
from accls.cli.check_command import run_check
from accls.cli.feedback_command import run_feedback
from accls.cli.parser import build_parser
from accls.cli.report_command import run_report
from accls.cli.suggest_commands import run_annotate, run_suggest
from accls.cli.verify_command import run_verify
from accls.files import (
    InputError,
    WriteError,
)
from accls.server.serve import serve, wants_server

__all__ = ["main"]


# A write to stdout that fails for want of room (`>/dev/full`, `ulimit -f`).
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO})


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
        "suggest": run_suggest,
        "annotate": run_annotate,
        "check": run_check,
        "verify": run_verify,
        "bench": run_bench,
        "feedback": run_feedback,
        "report": run_report,
    }
    run = commands.get(args.command)
    return None if run is None else run(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # `verify FILE [OPTIONS] -- ARGS`: what follows `--` is the program's; the
    # options before it, FILE's included, are parsed wherever they stand.
    program_args: list[str] = []
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in ("verify", "bench") and "--" in argv:
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
