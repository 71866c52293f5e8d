"""The build's view of a file: which preprocessor, with which flags, and its result.

The CLI and the language server both ask here, so a file is preprocessed as its
compile database (or, without one, the user's settings) says.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from accls.analysis import ProgramSummaries
from accls.frontend import ContextCache, HeaderContext, Preprocessor, header_context
from accls.project.compile_db import (
    MATH_FLAGS,
    CompileDatabaseError,
    compile_entry,
    find_database,
)

__all__ = ["BuildFlags", "build_context", "preprocessor_for", "with_program"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildFlags:
    """What the user said about building: compiler, folders, defines, standard."""

    cc: str = "gcc"
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    std: str | None = None
    database: str | None = None  # compile_commands.json; None: the nearest one
    flags: tuple[str, ...] = ()  # more flags for the compiler (-DX, -std=c99, ...)
    timeout_s: float = 10.0


def preprocessor_for(
    path: str | None, build: BuildFlags
) -> tuple[Preprocessor, list[str]]:
    """The preprocessor for `path`, and warnings about the compile database."""
    flags: list[str] = [f"-I{d}" for d in build.include_dirs]
    flags += [f"-D{d}" for d in build.defines]
    flags += [f"-std={build.std}"] if build.std else []
    flags += [
        f
        for f in build.flags
        if f.startswith(("-D", "-U", "-I", "-std=")) or f in MATH_FLAGS
    ]
    # Another compiler's preprocessor would do; the compile check already says
    # when the one named is missing.
    cc = build.cc if shutil.which(build.cc) or not shutil.which("gcc") else "gcc"
    warnings: list[str] = []
    database = build.database or (find_database(path) if path else None)
    if database is not None and path is not None:
        try:
            entry = compile_entry(database, path)
        except CompileDatabaseError as exc:
            warnings.append(f"{exc}; using the command-line settings")
            entry = None
        if entry is None and not warnings:
            warnings.append(
                f"{database}: does not list {path} (a stale database, or a file the "
                "build does not compile); using the command-line settings"
            )
        elif entry is not None and not Path(entry.directory).is_dir():
            warnings.append(
                f"{database}: the entry for {path} runs in {entry.directory}, which "
                "does not exist (a stale database?); its relative -I folders may be "
                "missing"
            )
        if entry is not None:
            flags = [*entry.preprocessor_flags(), *flags]
            if shutil.which(entry.compiler) is not None:
                cc = entry.compiler
            else:
                warnings.append(
                    f"{database}: names the compiler `{entry.compiler}`, which is not "
                    f"found; preprocessing with `{cc}`"
                )
    return Preprocessor(cc=cc, flags=tuple(flags), timeout_s=build.timeout_s), warnings


def build_context(
    text: str,
    path: str | None,
    build: BuildFlags,
    cache: ContextCache | None = None,
) -> tuple[HeaderContext, list[str]]:
    """The header context of a buffer, and what to tell the user about it."""
    pre, warnings = preprocessor_for(path, build)
    context = cache.get(text, path, pre) if cache else header_context(text, path, pre)
    if context.problem is not None:
        warnings.append(
            f"headers not read ({context.problem}): macros and declarations come "
            "from the file alone"
        )
    warnings.extend(
        f"header `{name}` not found (pass its folder with -I): what it declares is "
        "unknown to the analysis"
        for name in context.missing
    )
    return context, warnings


def with_program(
    context: HeaderContext | None, program: ProgramSummaries | None
) -> HeaderContext | None:
    """`context` told which functions of the project's other files are allocators.

    `double *u = alloc_field(n)` with `alloc_field` returning `malloc(..)` in
    another file is a fresh block, as a call of `malloc` itself would be. The CLI
    and the language server both ask here, so they read a file alike.
    """
    if context is None or program is None:
        return context
    allocators, fillers = program.allocators(), program.row_fillers()
    steady = program.row_steady()
    if not allocators and not fillers and not steady:
        return context
    return replace(
        context,
        allocators=allocators,
        row_tables=program.row_tables(),
        row_fillers=fillers,
        row_steady=steady,
    )
