"""`accls report`: a screening report of files, folders or a compile database."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from accls.cli.build_context import build_flags
from accls.cli.options import add_build_options
from accls.files import InputError, read_regular, replace_file, write_stdout
from accls.project import ProjectIndex, default_cache_dir, project_files
from accls.project.compile_db import CompileDatabaseError, database_files
from accls.screening import (
    FORMAT,
    FileScreen,
    Programs,
    Progress,
    Report,
    ScreenConfig,
    SkippedFile,
    render_html,
    report_json,
    screen_paths,
)

__all__ = ["add_report_parser", "run_report"]

_PEEK = 4096  # bytes of an existing output read to tell whether it is a report


def add_report_parser(subs: argparse._SubParsersAction[Any]) -> None:
    """The `report` command's options."""
    report = subs.add_parser(
        "report",
        help="a screening report of files, folders or a compile database: every "
        "loop's verdict, what blocks the rest, the dependence graphs (HTML or JSON)",
    )
    report.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="C files and folders (default with --compile-commands: its files)",
    )
    report.add_argument(
        "-o", "--output", metavar="OUT", help="write here (default: stdout)"
    )
    report.add_argument(
        "--force", action="store_true", help="overwrite OUT even if it is not a report"
    )
    report.add_argument("--format", choices=["html", "json"], default="html")
    report.add_argument(
        "--jobs", type=int, default=2, metavar="N", help="processes (default: 2)"
    )
    report.add_argument(
        "--validate",
        action="store_true",
        help="compile and race-check every suggestion (slow; default: analysis only)",
    )
    report.add_argument(
        "--max-rows",
        type=int,
        default=2000,
        metavar="N",
        help="table rows per file (default: %(default)s); the rest is counted",
    )
    report.add_argument(
        "--assume-no-alias",
        action="store_true",
        help="assume pointer arguments never overlap (as if `restrict`)",
    )
    report.add_argument(
        "--reassociate-float",
        action="store_true",
        help="reduce `float` sums in parallel although their low digits then "
        "change with the thread count (a -ffast-math build implies it)",
    )
    report.add_argument(
        "-I", dest="include", action="append", default=[], metavar="DIR"
    )
    report.add_argument("--cc", default="gcc", help="the preprocessor's compiler")
    add_build_options(report)
    report.add_argument(
        "--project",
        default=None,
        metavar="DIR",
        help="the project's folder: the functions its other files define are "
        "summarised for the calls of each loop (default with --compile-commands: "
        "the database's folder)",
    )
    report.add_argument(
        "--no-index",
        action="store_true",
        help="analyse each file alone, even with --project or --compile-commands",
    )
    report.add_argument(
        "--index-cache",
        default=None,
        metavar="DIR",
        help="where the project index keeps its summaries (default: the user's "
        "cache folder)",
    )


def _shown(path: str) -> str:
    """A found file's name relative to the working folder when it lies inside it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _inputs(args: argparse.Namespace) -> tuple[list[str], list[FileScreen]]:
    """The C files to screen, and the inputs that cannot be, with the reason."""
    files: dict[str, None] = {}
    skipped: list[FileScreen] = []
    paths: list[str] = list(args.paths)
    if not paths and args.compile_commands is None:
        raise InputError("report: name files or folders, or --compile-commands")
    if not paths:
        try:
            files.update(dict.fromkeys(database_files(args.compile_commands)))
        except CompileDatabaseError as exc:
            raise InputError(str(exc)) from None
        if not files:
            raise InputError(f"{args.compile_commands}: lists no source files")
    for path in paths:
        if os.path.isdir(path):
            found = project_files(path)
            if not found:
                raise InputError(f"{path}: no C files (*.c) in this folder")
            files.update(dict.fromkeys(_shown(f) for f in found))
        elif os.path.exists(path) or os.path.islink(path):
            files[path] = None
        else:
            reason = f"{path}: no such file or folder"
            skipped.append(
                FileScreen(
                    file=path,
                    rows=(),
                    loops=0,
                    skipped=SkippedFile(file=path, reason=reason),
                )
            )
    return list(files), skipped


def _check_output(target: str | None, force: bool) -> None:
    """Refuse an output that cannot be written, or that a report must not replace."""
    if target is None:
        return
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise InputError(f"{target}: the folder {folder} does not exist")
    if os.path.isdir(target):
        raise InputError(f"{target}: is a folder; name the report's file")
    if not os.path.lexists(target) or force:
        return
    try:
        head = read_regular(target, _PEEK).decode("utf-8", errors="replace")
    except (OSError, InputError):
        head = ""
    if FORMAT not in head:
        raise InputError(
            f"{target}: exists and is not an accls report; pass --force to replace it"
        )


@contextmanager
def _progress(enabled: bool, total: int) -> Iterator[Progress | None]:
    """A progress bar over `total` files on a terminal's stderr; nothing elsewhere."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.progress import Progress as Bar

    bar = Bar(
        TextColumn("screening"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=Console(file=sys.stderr),
        transient=True,
    )
    task = bar.add_task("", total=total)

    def told(done: int, total: int, path: str) -> None:
        bar.update(
            task, completed=done, total=total, description=os.path.basename(path)
        )

    with bar:
        yield told


def _programs(args: argparse.Namespace) -> Programs | None:
    """The project index's view for each file: `--project` or the compile database."""
    root, database = args.project, args.compile_commands
    if args.no_index or (root is None and database is None):
        return None
    if root is None:
        root = os.path.dirname(os.path.abspath(database))
    if not os.path.isdir(root):
        raise InputError(f"--project {root}: not a folder")
    if database is None:
        candidate = os.path.join(root, "compile_commands.json")
        database = candidate if os.path.isfile(candidate) else None
    index = ProjectIndex(
        root,
        build=build_flags(args),
        database=database,
        cache_dir=args.index_cache or default_cache_dir(),
    )
    index.build()
    return index.program_for


def _config(args: argparse.Namespace) -> ScreenConfig:
    return ScreenConfig(
        build=None if args.no_preprocess else build_flags(args),
        include_dirs=tuple(args.include),
        assume_no_alias=args.assume_no_alias,
        reassociate_float=args.reassociate_float,
        validate=args.validate,
        cc=args.cc,
        max_rows=max(1, args.max_rows),
    )


def _write(report: Report, args: argparse.Namespace) -> None:
    if args.format == "json":
        text = json.dumps(report_json(report), indent=1) + "\n"
    else:
        text = render_html(report)
    data = text.encode("utf-8", errors="surrogateescape")
    if args.output is None:
        write_stdout(data)
    else:
        replace_file(args.output, data)


def run_report(args: argparse.Namespace) -> int:
    """Screen the inputs and write the report; 2 when nothing could be screened."""
    if args.jobs < 1:
        raise InputError(f"--jobs: must be at least 1, not {args.jobs}")
    _check_output(args.output, args.force)
    files, skipped = _inputs(args)
    programs = _programs(args)
    with _progress(sys.stderr.isatty(), len(files)) as told:
        report = screen_paths(
            [*args.paths] or [str(args.compile_commands)],
            files,
            _config(args),
            jobs=args.jobs,
            progress=told,
            skipped=skipped,
            programs=programs,
        )
    _write(report, args)
    for screen in report.files:
        if screen.skipped is not None:
            print(f"accls: skipped {screen.skipped.reason}", file=sys.stderr)
    screened = [f for f in report.files if f.skipped is None]
    if args.output is not None:
        loops = sum(f.loops for f in screened)
        print(
            f"accls: {len(screened)} file(s), {loops} loop(s) screened in "
            f"{report.seconds:.1f} s: {args.output}",
            file=sys.stderr,
        )
    return 0 if screened else 2
