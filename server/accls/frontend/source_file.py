"""The model of one whole file (`SourceFile`) and the field events it records."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import StrEnum

from accls.frontend.loop_model import Loop
from accls.frontend.model import Branch, Function, Region, Span, UserReduction, Var
from accls.frontend.typetable import TypeTable

_THREADPRIVATE = re.compile(r"#\s*pragma\s+omp\s+threadprivate\s*\(([^)]*)\)")
_WORD = re.compile(r"[A-Za-z_]\w*")


_COMMENT_OR_STRING = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL
)


def _blank(match: re.Match[str]) -> str:
    """Spaces for a comment or literal, keeping its line breaks."""
    return re.sub(r"[^\n]", " ", match.group(0))


class FieldEventKind(StrEnum):
    """What a place does to the fields it names (see frontend/field_stores.py)."""

    STORE = "store"  # `path = value` where path ends in a field
    ADDRESS = "address"  # `&path` of a field: it may be set elsewhere; value: the call
    INIT = "init"  # a struct initialised from a list: path is the variable or ""
    CAST = "cast"  # `(type)path`: value is the type's text
    RETURN = "return"  # `return value;` (allocator wrappers)


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldEvent:
    """One place: its kind, the function it is in ("" at file scope), its texts."""

    kind: FieldEventKind
    function: str
    path: str
    value: str
    line: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFile:
    """Everything the front end extracted from one C file."""

    path: str
    text: str
    nests: tuple[Loop, ...]  # outermost loops in source order
    functions: tuple[Function, ...]
    globals: tuple[Var, ...]
    macros: tuple[tuple[str, str], ...]  # object-like macros: name, replacement
    errors: tuple[Span, ...]  # regions tree-sitter could not parse
    missing_headers: tuple[str, ...] = ()  # headers the preprocessor did not find
    preprocessor_problem: str | None = None  # why the build's context is missing
    stray_loops: tuple[Span, ...] = ()  # `for` keywords in them, loops not read
    skipped_loops: tuple[Span, ...] = ()  # `for` keywords in #if branches not built
    skipped_lines: frozenset[int] = frozenset()  # lines (1-based) of those branches
    constructs: tuple[Region, ...] = ()  # every omp pragma with what it governs
    branches: tuple[Branch, ...] = ()  # if arms and loop bodies, in source order
    types: TypeTable = field(default_factory=TypeTable)  # typedefs and structs
    # Stores to struct fields, their addresses, casts, returns (field points-to).
    field_events: tuple[FieldEvent, ...] = ()
    # The functions the project's headers define (`static inline`), parsed from
    # their preprocessed code; `places` gives each of its lines' header and line.
    headers: SourceFile | None = None
    places: tuple[tuple[str, int], ...] = ()
    # Functions whose every return is a fresh block (wrappers of `malloc`).
    allocators: frozenset[str] = frozenset()
    # Those of them that return a table of fresh, distinct rows (`alloc2d`).
    row_tables: frozenset[str] = frozenset()
    # Functions that store a fresh block in each row slot of the table passed at a
    # position (`row_fillers`): the table's rows are apart after the call.
    row_fillers: frozenset[tuple[str, int]] = frozenset()
    # Functions that leave the rows of a table passed at a position where they were
    # (`row_steady`; `~position`: they hand rows on, storing no slot).
    row_steady: frozenset[tuple[str, int]] = frozenset()
    # Functions that never keep the pointer passed at a position (`borrowers`).
    borrowers: frozenset[tuple[str, int]] = frozenset()
    # Functions that only free or fill a pointer whose address they are given
    # (`Release(&p)`): name, parameter position, whether they store a fresh block.
    pointer_slots: frozenset[tuple[str, int, bool]] = frozenset()
    # C++ classes that declare constructors but none without arguments: `T x;`
    # and a `private(x)` copy do not compile.
    no_default_constructor: frozenset[str] = frozenset()
    # C++ classes `operator+=` sums field by field (see frontend/cpp_reducers.py).
    user_reductions: tuple[UserReduction, ...] = ()
    # The other classes' `CLASS::operator+=` calls, and why each is no such sum.
    unreduced: tuple[tuple[str, str], ...] = ()
    language: str = "c"  # "c" or "fortran": the spelling of the pragmas written back
    unread_loops: tuple[tuple[Span, str], ...] = ()  # loops not modelled, and why
    notes: tuple[str, ...] = ()  # source-form problems worth a warning (Fortran)
    missing_modules: tuple[str, ...] = ()  # `use`d modules no file was found for
    # Function-like macros: name, parameters, replacement (what `MAX(m, x)` does).
    function_macros: tuple[tuple[str, tuple[str, ...], str], ...] = ()
    # `calling(fn)`: the overload a call of `fn.name` runs, by its start byte.
    pinned: int | None = None
    _by_name: dict[str, Function] = field(
        default_factory=dict, compare=False, repr=False
    )
    _data: list[bytes] = field(default_factory=list, compare=False, repr=False)
    _threadprivate: list[frozenset[str]] = field(
        default_factory=list, compare=False, repr=False
    )
    _code: list[str] = field(default_factory=list, compare=False, repr=False)
    _global_names: list[frozenset[str]] = field(
        default_factory=list, compare=False, repr=False
    )
    _sequential: list[tuple[Branch, ...]] = field(
        default_factory=list, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        for fn in self.functions:
            self._by_name.setdefault(fn.name, fn)

    @property
    def threadprivate(self) -> frozenset[str]:
        """Names the file declares `omp threadprivate` (read once per file)."""
        if not self._threadprivate:
            found = _THREADPRIVATE.findall(self.text)
            names = {m.group(0) for args in found for m in _WORD.finditer(args)}
            self._threadprivate.append(frozenset(names))
        return self._threadprivate[0]

    @property
    def global_names(self) -> frozenset[str]:
        """The names of the file's globals (read once per file)."""
        if not self._global_names:
            self._global_names.append(frozenset(g.name for g in self.globals))
        return self._global_names[0]

    @property
    def sequential_bodies(self) -> tuple[Branch, ...]:
        """The bodies of the `while` and `do` loops of C, in source order (once)."""
        if not self._sequential:
            self._sequential.append(
                tuple(
                    b
                    for b in self.branches
                    if b.kind == "loop" and b.statement in ("while", "do")
                )
            )
        return self._sequential[0]

    @property
    def code(self) -> str:
        """The text with comments and string literals blanked (read once per file)."""
        if not self._code:
            self._code.append(_COMMENT_OR_STRING.sub(_blank, self.text))
        return self._code[0]

    def function(self, name: str | None) -> Function | None:
        """The function called `name`, if it is defined in this file."""
        return self._by_name.get(name) if name is not None else None

    def calling(self, fn: Function) -> SourceFile:
        """The file as a call resolved to `fn`, one of its name's overloads, sees it."""
        return replace(self, _by_name={fn.name: fn}, pinned=fn.span.start_byte)

    def place(self, line: int) -> str:
        """`file:line` of a line: a header's own place for the headers' code."""
        if 0 < line <= len(self.places):
            name, number = self.places[line - 1]
            return f"{name}:{number}"
        return f"{self.path}:{line}"

    @property
    def data(self) -> bytes:
        """The text as UTF-8 bytes, the unit of every Span offset."""
        if not self._data:
            self._data.append(self.text.encode("utf-8", errors="surrogateescape"))
        return self._data[0]

    def loops(self) -> tuple[Loop, ...]:
        """Every loop in the file, outer first within each nest."""
        return tuple(loop for nest in self.nests for loop in nest.walk())
