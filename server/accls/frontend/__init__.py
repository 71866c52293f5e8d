"""C text to our model; the only package that imports tree-sitter."""

from accls.frontend.model import (
    AccessKind,
    Advance,
    Call,
    Clause,
    Directive,
    Exit,
    ExitKind,
    Function,
    Loop,
    Point,
    RedOp,
    Ref,
    Region,
    SourceFile,
    Span,
    Subscript,
    Var,
)
from accls.frontend.parse import parse_source
from accls.frontend.poly import Monomial, Poly
from accls.frontend.pragmas import parse_directive

__all__ = [
    "AccessKind",
    "Advance",
    "Call",
    "Clause",
    "Directive",
    "Exit",
    "ExitKind",
    "Function",
    "Loop",
    "Monomial",
    "Point",
    "Poly",
    "RedOp",
    "Ref",
    "Region",
    "SourceFile",
    "Span",
    "Subscript",
    "Var",
    "parse_directive",
    "parse_source",
]
