"""User files: reading C sources and writing files without ever losing them."""

from accls.files.reading import (
    BOM,
    MAX_BYTES,
    InputError,
    c_under_fortran_name,
    file_kind,
    looks_like_c,
    other_language,
    read_regular,
    read_source,
    read_source_bytes,
)
from accls.files.writing import WriteError, replace_file, write_stdout

__all__ = [
    "BOM",
    "MAX_BYTES",
    "InputError",
    "WriteError",
    "c_under_fortran_name",
    "file_kind",
    "looks_like_c",
    "other_language",
    "read_regular",
    "read_source",
    "read_source_bytes",
    "replace_file",
    "write_stdout",
]
