"""`accls check`: the findings for the pragmas already in the files."""

from __future__ import annotations

import argparse
import json
import sys

from accls.cli.build_context import file_context
from accls.cli.suggest_commands import input_warning, project_program
from accls.files import (
    InputError,
    c_under_fortran_name,
    other_language,
    read_source,
)
from accls.frontend import parse_source
from accls.pipeline import (
    check_text,
)
from accls.project import with_program

__all__ = ["run_check"]


def run_check(args: argparse.Namespace) -> int:
    """Check every file; exit 1 on an error finding, 2 on unreadable input."""
    from accls.analysis.findings import Finding
    from accls.cli.findings_output import exit_code, finding_json, write_findings_text
    from accls.project import ProjectIndex

    items: list[tuple[str, Finding]] = []
    failed = False
    indexes: dict[tuple[str, str | None], ProjectIndex] = {}
    for path in args.files:
        language = other_language(path)
        try:
            if language is not None:
                # Reading C++ as C would miss its loops and pass the file silently.
                raise InputError(
                    f"{path}: not checked: {language} is not supported yet"
                )
            text = read_source(path)
            wrong = c_under_fortran_name(path, text)
            if wrong is not None:
                raise InputError(f"{wrong}; not checked")
        except InputError as exc:
            print(f"accls: error: {exc}", file=sys.stderr)
            failed = True
            continue
        context = file_context(path, text, args)
        try:
            program = project_program(path, args, indexes)
        except InputError as exc:
            print(f"accls: error: {exc}", file=sys.stderr)
            return 2
        context = with_program(context, program)
        source = parse_source(text, path, args.include, context=context)
        found = check_text(
            text,
            path,
            include_dirs=args.include,
            context=context,
            program=program,
            source=source,
        )
        # A module unit, C under a C++ name, a part that does not parse: its
        # pragmas there go unchecked, which "0 findings" alone would hide.
        warning = input_warning(source, path, text)
        if warning is not None:
            print(f"accls: warning: {warning}", file=sys.stderr)
        items.extend((path, f) for f in found)
    if args.format == "json":
        json.dump([finding_json(p, f) for p, f in items], sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif items or not failed:
        write_findings_text(sys.stdout, items)
    return 2 if failed else exit_code(f for _, f in items)
