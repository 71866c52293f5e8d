"""`accls verify`: run the program serially and with the pragmas, and compare."""

from __future__ import annotations

import argparse
import sys

from accls.files import (
    InputError,
)

__all__ = ["run_verify"]


def run_verify(args: argparse.Namespace) -> int:
    """Run the program serially and annotated: 0 same, 1 different, 3 undecided."""
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
