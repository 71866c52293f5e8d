"""`accls bench`: time the serial and the annotated program (opt-in, sandboxed)."""

from __future__ import annotations

import argparse
import re
import sys

from accls.cli.verify_command import verify_settings
from accls.files import InputError
from accls.settings import Settings

__all__ = ["run_bench"]


def run_bench(args: argparse.Namespace) -> int:
    """Time the program: 0 timed, 1 a parallel output differs, 3 nothing timed."""
    from rich.progress import Progress

    from accls.pipeline.bench import bench_file, render_bench

    if args.repeats < 1:
        raise InputError(f"--repeats: need 1 or more, not {args.repeats}")
    if args.budget <= 0:
        raise InputError(f"--budget: need a positive number of seconds: {args.budget}")
    try:
        ignore = re.compile(args.ignore) if args.ignore else None
    except re.error as exc:
        raise InputError(f"--ignore: not a regular expression: {exc}") from None
    verify = verify_settings(args)
    settings = Settings(include_paths=verify.include_dirs)
    with Progress(transient=True, disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task("bench", total=None)

        def progress(what: str, done: int, total: int) -> None:
            bar.update(task, description=what, completed=done, total=total)

        report = bench_file(
            args.file,
            settings,
            verify,
            repeats=args.repeats,
            per_loop=args.per_loop,
            budget_s=args.budget,
            every=args.all,
            hoist=not args.no_hoist,
            progress=progress,
            store=None,
            record=not args.no_record,
            ignore=ignore,
        )
    sys.stdout.write(render_bench(report))
    if any(t.matches is False for t in report.timings):
        return 1
    return 0 if any(t.wall_s is not None for t in report.timings if t.threads) else 3
