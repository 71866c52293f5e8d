"""`accls suggest` and `accls annotate`: suggestions through the one pipeline."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from accls.analysis import ProgramSummaries
from accls.analysis.cost import Estimate
from accls.cli.build_context import build_flags, file_context
from accls.cli.options import (
    backend_settings,
    settings_from_args,
)
from accls.cli.report import suggestion_json, unread_loop_json, write_text
from accls.files import (
    BOM,
    InputError,
    looks_like_c,
    read_source,
    read_source_bytes,
    replace_file,
    write_stdout,
)
from accls.frontend import SourceFile, Span, parse_source
from accls.frontend.fortran_form import is_fortran
from accls.frontend.fortran_modules import module_folders
from accls.hybrid import BackendPool
from accls.pipeline import (
    OnceSink,
    SuggestResult,
    analysis_options,
    annotate_hoisted,
    annotate_lifetimes,
    compiler_settings,
    kernels_regions_checked,
    profitable_only,
    suggest_text,
)
from accls.project import (
    ProjectIndex,
    default_cache_dir,
    find_database,
    with_program,
)
from accls.settings import Settings
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target
from accls.suggest.annotate import annotate_text
from accls.suggest.backends import BackendKind
from accls.suggest.inductions import rewrite_all
from accls.suggest.restrict import restrict_all
from accls.validation import Validation

__all__ = ["input_warning", "run_annotate", "run_suggest"]


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


def project_program(
    path: str,
    args: argparse.Namespace,
    indexes: dict[tuple[str, str | None], ProjectIndex],
) -> ProgramSummaries | None:
    """What the other files of `path`'s project define: `--project` or its database.

    `indexes` holds the run's project indexes, by folder and compile database.
    """
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
    index = indexes.get(key)
    if index is None:
        index = ProjectIndex(
            root,
            build=build_flags(args),
            database=database,
            cache_dir=args.index_cache or default_cache_dir(),
        )
        index.build()
        indexes[key] = index
    return index.program_for(path)


def input_warning(source: SourceFile, path: str, text: str) -> str | None:
    """The one-line warning when the file is not the language its name says."""
    return looks_like_c(
        path,
        text,
        sum(e.end_byte - e.start_byte for e in source.errors),
        len(source.nests) + len(source.unread_loops),
    )


def _with_module_folders(path: str, args: argparse.Namespace) -> argparse.Namespace:
    """A Fortran file's flags with `--project`'s module folders as -I folders.

    As a Fortran build finds the modules a file uses through -I, so do the front
    end (their declarations) and the compile check (their `.mod` files).
    """
    root = getattr(args, "project", None)
    if root is None or not is_fortran(path) or not os.path.isdir(root):
        return args
    extra = [d for d in module_folders(root) if d not in args.include]
    if not extra:
        return args
    return argparse.Namespace(**{**vars(args), "include": [*args.include, *extra]})


def _suggest_one(
    path: str, args: argparse.Namespace, run: _Run, *, every_loop: bool = False
) -> tuple[str, SuggestResult, Settings]:
    """The text suggested for (after rewrites), its suggestions, and the settings.

    With `every_loop`, one suggestion for each loop that was read.
    """
    text = read_source(path)
    args = _with_module_folders(path, args)
    context = file_context(path, text, args)
    program = project_program(path, args, run.indexes)
    context = with_program(context, program)
    if getattr(args, "rewrite_inductions", False):
        assumed = analysis_options(_settings(args), program=program)
        text, done = rewrite_all(text, assumed, path, args.include, context)
        for rewrite in done:
            print(f"accls: rewrote {rewrite.summary}", file=sys.stderr)
    if getattr(args, "add_restrict", False):
        # The other files' calls may pass one buffer twice: no promise then.
        assumed = analysis_options(_settings(args), program=program)
        text, promised = restrict_all(text, assumed, path, args.include, context)
        for promise in promised:
            print(f"accls: promised {promise.summary}", file=sys.stderr)
    source = parse_source(text, path, args.include, context=context)
    warning = input_warning(source, path, text)
    read = source.nests or source.unread_loops
    if warning is not None and not read and source.errors:
        raise InputError(warning)
    if warning is not None:
        print(f"accls: warning: {warning}", file=sys.stderr)
    for note in source.notes:
        print(f"accls: warning: {path}: {note}", file=sys.stderr)
    for span, why in source.unread_loops:
        print(
            f"accls: note: {path}:{span.line}: loop not analysed: {why}",
            file=sys.stderr,
        )
    # Here, after the file's own warnings, as the check of -n always came.
    settings = _settings(args)
    result = suggest_text(
        text,
        path,
        settings,
        source=source,
        context=context,
        every_loop=every_loop,
        backends=run.backends,
        warnings=run.warnings,
        program=program,
    )
    return text, result, settings


def run_suggest(args: argparse.Namespace) -> int:
    """Print a pragma or a refusal for every loop of every file."""
    run = _Run()
    items: list[tuple[str, Suggestion]] = []
    checked: dict[tuple[str, int], Validation] = {}
    estimates: dict[tuple[str, int], Estimate] = {}
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
        estimates.update({(path, key): e for key, e in result.estimates.items()})
    if args.format == "json":
        objects = _json_objects(items, checked, unread, options, estimates)
        json.dump(objects, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif items or not failed:
        write_text(sys.stdout, items, estimates=estimates)
    return 2 if failed else 0


def _json_objects(
    items: list[tuple[str, Suggestion]],
    checked: dict[tuple[str, int], Validation],
    unread: dict[str, tuple[tuple[Span, str], ...]],
    opts: SuggestOptions | None,
    estimates: dict[tuple[str, int], Estimate],
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
            suggestion_json(
                p,
                s,
                checked.get((p, s.loop.id)),
                lines[p],
                estimates.get((p, s.loop.id)),
            )
            for p, s in items
            if p == path
        ]
        mine.extend(unread_loop_json(path, span, opts, why) for span, why in spans)
        objects.extend(sorted(mine, key=lambda o: (o["line"], o["column"])))
    return objects


def _kernels_regions(
    path: str, text: str, settings: Settings, suggestions: tuple[Suggestion, ...]
) -> tuple[Suggestion, ...]:
    """The runs of loops as `kernels` regions, in a file that writes such regions."""
    include = settings.include_paths
    compiler = compiler_settings(settings, include) if settings.validate else None
    converted, why = kernels_regions_checked(text, path, suggestions, compiler, include)
    if why:
        print(
            f"accls: kept `parallel loop` pragmas: `kernels` regions were refused, "
            f"{why}",
            file=sys.stderr,
        )
    return converted


def _with_lifetimes(
    path: str,
    text: str,
    settings: Settings,
    suggested: SuggestResult,
    suggestions: tuple[Suggestion, ...],
) -> str:
    """The annotated text with the device lifetimes that check out (on stderr)."""
    assert suggested.analysis is not None
    include = settings.include_paths
    compiler = compiler_settings(settings, include) if settings.validate else None
    outcome = annotate_lifetimes(
        text,
        path,
        suggested.analysis,
        suggestions,
        settings.suggest_options,
        compiler,
        include,
    )
    for lifetime in outcome.lifetimes:
        print(
            f"accls: {lifetime.title[0].lower()}{lifetime.title[1:]} "
            f"(lines {lifetime.enter_line}-{lifetime.exit_line}; "
            f"{lifetime.moved.reason})",
            file=sys.stderr,
        )
    for lifetime, why in outcome.refused:
        print(
            f"accls: kept the kernels' own copies in `{lifetime.function}()`: "
            f"keeping {', '.join(lifetime.names)} on the device was refused, {why}",
            file=sys.stderr,
        )
    for run in outcome.runs:
        print(
            f"accls: ran {len(run.loops)} independent kernels at once "
            f"({run.reasons[0]})",
            file=sys.stderr,
        )
    for run, why in outcome.refused_runs:
        print(
            f"accls: kept {len(run.loops)} independent kernels in order: running "
            f"them at once was refused, {why}",
            file=sys.stderr,
        )
    return outcome.text


def run_annotate(args: argparse.Namespace) -> int:
    """Write the file with the pragmas inserted (stdout, -o OUT or --in-place)."""
    path = args.file
    text, suggested, settings = _suggest_one(path, args, _Run())
    suggestions, unprofitable = profitable_only(suggested, every=args.all)
    options = settings.suggest_options
    offload = options.dialect is Dialect.OPENACC or options.target is Target.GPU
    if options.dialect is Dialect.OPENACC:
        suggestions = _kernels_regions(path, text, settings, suggestions)
    if offload and not args.no_lifetimes and suggested.analysis is not None:
        result = _with_lifetimes(path, text, settings, suggested, suggestions)
    elif args.no_hoist or (options.dialect, options.target) != (
        Dialect.OPENMP,
        Target.CPU,
    ):
        result = annotate_text(text, suggestions)
    else:
        hoisted = annotate_hoisted(
            text, path, settings, suggested, suggestions, settings.include_paths
        )
        result = hoisted.text
        for region in hoisted.regions:
            print(
                f"accls: opened one parallel region around the loop at line "
                f"{region.outer.line} ({len(region.loops)} `omp for` inside)",
                file=sys.stderr,
            )
        for region, why in hoisted.refused:
            print(
                f"accls: kept a region per loop inside the loop at line "
                f"{region.outer.line}: hoisting it was refused, {why}",
                file=sys.stderr,
            )
    if read_source_bytes(path).startswith(BOM.encode()):
        result = BOM + result
    data = result.encode("utf-8", errors="surrogateescape")
    target = path if args.in_place else args.output
    if target is None:
        write_stdout(data)
        if unprofitable:
            print(
                f"accls: {unprofitable} pragma(s) left out as unlikely to pay off "
                "(--all inserts them)",
                file=sys.stderr,
            )
        return 0
    if not args.in_place and os.path.exists(target) and os.path.samefile(target, path):
        raise InputError(
            f"{target}: is the input file; pass --in-place to overwrite it"
        )
    replace_file(target, data)
    count = sum(1 for s in suggestions if s.pragma is not None and s.existing is None)
    left = (
        f"; {unprofitable} left out as unlikely to pay off (--all inserts them)"
        if unprofitable
        else ""
    )
    print(f"accls: {count} pragma(s) inserted into {target}{left}", file=sys.stderr)
    return 0
