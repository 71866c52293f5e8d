"""What accls knows about the user's project: its compile database."""

from accls.project.compile_db import (
    CompileDatabaseError,
    CompileEntry,
    compile_entry,
    find_database,
)
from accls.project.context import BuildFlags, build_context, preprocessor_for

__all__ = [
    "BuildFlags",
    "CompileDatabaseError",
    "CompileEntry",
    "build_context",
    "compile_entry",
    "find_database",
    "preprocessor_for",
]
