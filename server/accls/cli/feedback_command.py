"""`accls feedback export|path`: the local store of applied suggestions."""

from __future__ import annotations

import argparse
import io
import os
import sys

from accls.files import (
    InputError,
    replace_file,
)

__all__ = ["run_feedback"]


def run_feedback(args: argparse.Namespace) -> int:
    """Export the feedback store as JSONL, or print where it lives."""
    from pathlib import Path

    from accls.feedback import FeedbackError, FeedbackStore, default_path

    if args.feedback_command == "path":
        print(default_path())
        return 0
    if args.feedback_command != "export":
        print("accls: error: feedback needs a command: export or path", file=sys.stderr)
        return 2
    db = Path(args.db) if args.db else default_path()
    if not db.exists():
        # Exporting must not create an empty database as a side effect.
        raise InputError(f"{db}: no feedback database (nothing recorded yet)")
    if args.output and os.path.exists(args.output):
        if os.path.samefile(args.output, db):
            raise InputError(f"{args.output}: is the feedback database itself")
        if not args.force:
            raise InputError(f"{args.output}: exists; pass --force to overwrite it")
    buffer = io.StringIO()
    try:
        with FeedbackStore(db, read_only=True) as store:
            count = store.export_jsonl(buffer)
    except FeedbackError as exc:
        raise InputError(str(exc)) from None
    lines = buffer.getvalue()
    if args.output is None:
        sys.stdout.write(lines)
    else:
        replace_file(args.output, lines.encode("utf-8"))
    print(f"accls: {count} feedback record(s) exported", file=sys.stderr)
    return 0
