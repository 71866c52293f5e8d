"""Post-validation of candidate pragmas: the compile check and the race re-check."""

from accls.validation.compile import (
    CompileResult,
    CompilerSettings,
    compile_check,
    compiler_available,
    edit_compiles,
)
from accls.validation.compile_runner import default_cache_dir
from accls.validation.outcome import Validation, apply_validation, validate

__all__ = [
    "CompileResult",
    "CompilerSettings",
    "Validation",
    "apply_validation",
    "compile_check",
    "compiler_available",
    "default_cache_dir",
    "edit_compiles",
    "validate",
]
