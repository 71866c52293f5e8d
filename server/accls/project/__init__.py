"""What accls knows about the user's project: its compile database."""

from accls.project.compile_db import (
    CompileDatabaseError,
    CompileEntry,
    compile_entry,
    find_database,
)
from accls.project.context import (
    BuildFlags,
    build_context,
    preprocessor_for,
    with_program,
)
from accls.project.file_list import project_files
from accls.project.index import ProjectIndex
from accls.project.index_cache import default_cache_dir

__all__ = [
    "BuildFlags",
    "CompileDatabaseError",
    "CompileEntry",
    "ProjectIndex",
    "build_context",
    "compile_entry",
    "default_cache_dir",
    "find_database",
    "preprocessor_for",
    "project_files",
    "with_program",
]
