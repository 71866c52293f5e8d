"""How a file is built, from the flags: its preprocessor sees what the build sees."""

from __future__ import annotations

import argparse
import sys

from accls.frontend import HeaderContext
from accls.project import (
    BuildFlags,
    build_context,
)

__all__ = ["build_flags", "file_context"]


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
