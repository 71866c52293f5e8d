"""`accls verify`: run the program serially and with the pragmas, and compare."""

from __future__ import annotations

import argparse
import shlex
import sys

from accls.files import InputError
from accls.validation.verify_settings import VerifySettings

__all__ = ["run_verify", "verify_settings"]


def verify_settings(args: argparse.Namespace) -> VerifySettings:
    """The run settings of `verify`'s (or `bench`'s) parsed arguments."""
    try:
        threads = tuple(int(t) for t in args.threads.split(",") if t.strip())
    except ValueError:
        raise InputError(f"--threads: not a list of numbers: {args.threads}") from None
    if not threads or min(threads) < 1:
        raise InputError(f"--threads: need counts of 1 or more: {args.threads}")
    try:
        cflags = tuple(shlex.split(args.cflags))
    except ValueError as exc:
        raise InputError(f"--cflags: cannot split {args.cflags!r}: {exc}") from None
    return VerifySettings(
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


def run_verify(args: argparse.Namespace) -> int:
    """Run the program serially and annotated: 0 same, 1 different, 3 undecided."""
    from accls.validation.run import render_report, verify

    report = verify(args.file, verify_settings(args))
    sys.stdout.write(render_report(report) + "\n")
    if report.equivalent is None:
        return 3
    return 0 if report.equivalent else 1
