"""How a file is built, from the flags: its preprocessor sees what the build sees."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from accls.analysis import ProgramSummaries
from accls.frontend import HeaderContext
from accls.project import (
    BuildFlags,
    build_context,
)

__all__ = ["build_flags", "file_context", "with_program"]


def build_flags(args: argparse.Namespace) -> BuildFlags:
    """The preprocessor, include folders, macros and standard the flags name."""
    return BuildFlags(
        cc=getattr(args, "cc", "gcc"),
        include_dirs=tuple(args.include),
        defines=tuple(args.defines),
        std=args.std,
        database=args.compile_commands,
    )


def file_context(
    path: str, text: str, args: argparse.Namespace
) -> HeaderContext | None:
    """The build's context of a file; warnings about it go to stderr."""
    if args.no_preprocess:
        return None
    build = build_flags(args)
    context, warnings = build_context(text, path, build)
    for warning in warnings:
        print(f"accls: warning: {path}: {warning}", file=sys.stderr)
    return context


def with_program(
    context: HeaderContext | None, program: ProgramSummaries | None
) -> HeaderContext | None:
    """`context` told which functions of the project's other files are allocators.

    `double *u = alloc_field(n)` with `alloc_field` returning `malloc(..)` in
    another file is a fresh block, as a call of `malloc` itself would be.
    """
    if context is None or program is None:
        return context
    allocators = program.allocators()
    return replace(context, allocators=allocators) if allocators else context
