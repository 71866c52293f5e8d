"""Post-validation of candidate pragmas: the compile check."""

from accls.validation.compile import (
    CompileResult,
    CompilerSettings,
    compile_check,
    compiler_available,
)
from accls.validation.compile_runner import default_cache_dir

__all__ = [
    "CompileResult",
    "CompilerSettings",
    "compile_check",
    "compiler_available",
    "default_cache_dir",
]
