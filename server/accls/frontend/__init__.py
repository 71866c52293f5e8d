"""C text to our model; the only package that imports tree-sitter."""

from accls.frontend.cpp_files import is_cpp
from accls.frontend.library import Effect, LibraryFunction, library_function
from accls.frontend.loop_model import Limit, Loop, RangeFor
from accls.frontend.model import (
    EXIT_CALLS,
    FROM_CALL,
    NEW_OBJECT,
    AccessKind,
    Advance,
    Branch,
    Call,
    Clause,
    Directive,
    Exit,
    ExitKind,
    Function,
    Point,
    RedOp,
    Ref,
    Region,
    Span,
    Subscript,
    UserReduction,
    Var,
)
from accls.frontend.parse import parse_source
from accls.frontend.poly import Monomial, Poly
from accls.frontend.pragmas import parse_directive
from accls.frontend.preprocessor import Preprocessor
from accls.frontend.restrict import Insertion, restrict_insertions
from accls.frontend.source_file import FieldEvent, FieldEventKind, SourceFile
from accls.frontend.translation_unit import (
    ContextCache,
    HeaderContext,
    header_context,
)
from accls.frontend.typetable import TypeTable

__all__ = [
    "EXIT_CALLS",
    "FROM_CALL",
    "NEW_OBJECT",
    "AccessKind",
    "Advance",
    "Branch",
    "Call",
    "Clause",
    "ContextCache",
    "Directive",
    "Effect",
    "Exit",
    "ExitKind",
    "FieldEvent",
    "FieldEventKind",
    "Function",
    "HeaderContext",
    "Insertion",
    "LibraryFunction",
    "Limit",
    "Loop",
    "Monomial",
    "Point",
    "Poly",
    "Preprocessor",
    "RangeFor",
    "RedOp",
    "Ref",
    "Region",
    "SourceFile",
    "Span",
    "Subscript",
    "TypeTable",
    "UserReduction",
    "Var",
    "header_context",
    "is_cpp",
    "library_function",
    "parse_directive",
    "parse_source",
    "restrict_insertions",
]
