"""What the compiler sees around a buffer: the real preprocessor's macros and headers.

The buffer itself is still parsed as the user wrote it (every position stays a
position in the user's file); what comes from here is its context, as the build
makes it: the macros defined by the headers, `-D` flags and `#if` branches the
build selects, and the global declarations of the project's own headers. The
preprocessor runs on the buffer's directive lines alone (its *skeleton*), so an
edit inside a function changes nothing here and hits the cache.

The one place that reads the preprocessor's line markers (`preprocessor` runs it).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from tree_sitter import Node

from accls.frontend.cpp_files import is_cpp
from accls.frontend.decls import declared_vars
from accls.frontend.fortran_form import is_fortran, normalized
from accls.frontend.macros import FunctionMacro, MacroTable, define_into
from accls.frontend.model import Var
from accls.frontend.preprocessor import (
    ACTIVE_LINE,
    Preprocessor,
    preprocess,
    skeleton,
)
from accls.frontend.skipped_lines import untaken_includes
from accls.frontend.tsparser import parse_bytes, parse_cpp_bytes, top_level_nodes
from accls.frontend.types import collect_types
from accls.frontend.typetable import TypeTable

__all__ = [
    "ContextCache",
    "HeaderContext",
    "header_context",
]

_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$')
# The compiler's own macros kept among the build's: those saying that it may
# reorder floating-point sums (-ffast-math, -fassociative-math).
_REORDERING = ("#define __ASSOCIATIVE_MATH__ ", "#define __FAST_MATH__ ")


@dataclass(frozen=True, slots=True, kw_only=True)
class HeaderContext:
    """The macros and header declarations the build gives a buffer."""

    macros: MacroTable = field(default_factory=MacroTable)
    globals: tuple[Var, ...] = ()  # file-scope declarations of the project's headers
    headers: tuple[str, ...] = ()  # the project's (non-system) headers it read
    missing: tuple[str, ...] = ()  # headers that were not found
    problem: str | None = None  # why the preprocessor could not run, if it could not
    inactive: frozenset[int] = frozenset()  # 1-based lines the build skips (#if)
    types: TypeTable = field(default_factory=TypeTable)  # the headers' typedefs
    # The preprocessed code of the project's headers when it defines functions
    # (`static inline` ones) or holds data on the device (`acc declare`, `omp
    # declare target`), and the header file and line of each of its lines.
    code: str = ""
    places: tuple[tuple[str, int], ...] = ()
    # Functions the project's other files define that return only fresh blocks
    # (`alloc_field` in field.c: `return malloc(..)`), as the project index says.
    allocators: frozenset[str] = frozenset()
    # Those of them that return a table of fresh, distinct rows (`alloc2d`).
    row_tables: frozenset[str] = frozenset()
    # Functions that store a fresh block in each row slot of the table passed at a
    # position (`fresh_rows(t, n)`: `t[k] = malloc(..)`).
    row_fillers: frozenset[tuple[str, int]] = frozenset()
    # Functions that leave the rows of a table passed at a position where they were.
    row_steady: frozenset[tuple[str, int]] = frozenset()

    @property
    def usable(self) -> bool:
        """True when the preprocessor ran (perhaps without some headers)."""
        return self.problem is None


_DECLARE = re.compile(r"[ \t]*#[ \t]*pragma[ \t]+(acc|omp)\b.*\bdeclare\b")


def _split(
    output: str, unit: str
) -> tuple[list[str], list[str], list[str], set[int], list[tuple[str, int]]]:
    """Directives and code of the project's own files, its headers, active lines.

    The last list gives the header file and line of each line of the code.
    """
    defines: list[str] = []
    code: list[str] = []
    places: list[tuple[str, int]] = []
    headers: list[str] = []
    active: set[int] = set()
    current, system, line = "", False, 0
    for text in output.splitlines():
        marker = _MARKER.match(text)
        if marker is not None:
            flags = marker.group(3).split()
            same = marker.group(2) == current and not {"1", "2"} & set(flags)
            current, line = marker.group(2), int(marker.group(1))
            # A system macro (`NULL`) expanded in a project header marks its
            # expansion "3" without leaving the header: still the header's code.
            system = system if same else "3" in flags
            is_header = not current.startswith("<") and not system and current != unit
            if is_header and current not in headers:
                headers.append(current)
            code.append("")
            places.append((current, line))
            continue
        here, line = line, line + 1
        if current == "<built-in>" and text.startswith(_REORDERING):
            defines.append(text)  # the build lets the compiler reorder sums
        if system or current == "<built-in>":
            continue
        if text.startswith(("#define", "#undef")):
            defines.append(text)
        elif current == unit:
            if ACTIVE_LINE in text:
                active.add(here)
        elif current != "<command-line>":
            code.append(text)
            places.append((os.path.normpath(current), here))
    return defines, code, headers, active, places


def _macro_table(defines: Sequence[str], text: str = "") -> MacroTable:
    """The macros the build defines last; `text`'s local helper macros kept.

    A function-like macro the file defines, uses and `#undef`s in one place
    (`TRIPLE_PRODUCT` in a function body) is gone at the end, but every use of
    it lies before the `#undef`: it stays, unless its name is written after.
    """
    table = MacroTable()
    undone: dict[str, FunctionMacro] = {}
    for line in defines:
        if line.startswith("#undef"):
            name = line.split()[1] if len(line.split()) > 1 else ""
            table.objects.pop(name, None)
            gone = table.functions.pop(name, None)
            if gone is not None:
                undone[name] = gone
        else:
            define_into(line, table)
    bodies = " ".join(
        [*table.objects.values(), *(m.body for m in table.functions.values())]
    )
    for name, macro in undone.items():
        word = re.compile(rf"\b{re.escape(name)}\b")
        if name in table.functions or name in table.objects or word.search(bodies):
            continue  # defined again, or another macro may still expand to it
        undef = list(re.finditer(rf"^[ \t]*#[ \t]*undef[ \t]+{name}\b", text, re.M))
        if undef and word.search(text, undef[-1].end()) is None:
            table.functions[name] = macro
    return table


def _globals(
    code: Sequence[str], macros: MacroTable, cpp: bool = False
) -> tuple[tuple[Var, ...], TypeTable, bool]:
    """The headers' globals, their types, and whether they define functions."""
    data = "\n".join(code).encode("utf-8", errors="surrogateescape")
    root = (parse_cpp_bytes(data) if cpp else parse_bytes(data)).root_node
    out: list[Var] = []
    functions = False
    for node in top_level_nodes(root):
        if node.type == "declaration":
            out.extend(declared_vars(node, "global", macros))
        functions = functions or node.type == "function_definition"
        functions = functions or (cpp and _defines_function(node))
    return tuple(out), collect_types(root, macros), functions


_CXX_HOLDERS = frozenset(
    {
        "template_declaration", "namespace_definition", "declaration_list",
        "class_specifier", "struct_specifier", "field_declaration_list",
        "declaration", "linkage_specification",
    }
)  # fmt: skip


def _defines_function(node: Node) -> bool:
    """Whether a C++ template, namespace or class defines a function in it."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "function_definition":
            return True
        if cur.type in _CXX_HOLDERS:
            stack.extend(cur.named_children)
    return False


def _relative(
    places: Sequence[tuple[str, int]], path: str | None
) -> tuple[tuple[str, int], ...]:
    """`places` with the headers named from the buffer's folder when they are near."""
    folder = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
    names: dict[str, str] = {}
    for name, _ in places:
        if name not in names:
            rel = os.path.relpath(name, folder) if os.path.isabs(name) else name
            names[name] = name if rel.startswith("../../") else rel
    return tuple((names[name], line) for name, line in places)


def header_context(text: str, path: str | None, pre: Preprocessor) -> HeaderContext:
    """The context the build gives `text` (the buffer of `path`)."""
    if is_fortran(path):
        dirs = tuple(f[2:] for f in pre.flags if f.startswith("-I") and len(f) > 2)
        form = normalized(text, path, dirs)
        return HeaderContext(missing=form.missing, problem=form.problem)
    done = preprocess(text, path, pre)
    if isinstance(done, str):
        return HeaderContext(problem=done)
    output, unit, missing = done
    defines, code, headers, active, places = _split(output, unit)
    macros = _macro_table(defines, text)
    marked = skeleton(text).splitlines()
    if ACTIVE_LINE in marked and not active:
        # Nothing of the file came out: a wrapper that is no preprocessor.
        return HeaderContext(problem="the preprocessor's output misses the file")
    inactive = frozenset(
        number
        for number, line in enumerate(marked, start=1)
        if line == ACTIVE_LINE and number not in active
    ) | untaken_includes(marked, active)
    globals_, types, functions = _globals(code, macros, is_cpp(path))
    # A header's `declare` keeps its globals on the device in every includer.
    functions = functions or any(_DECLARE.match(line) for line in code)
    return HeaderContext(
        macros=macros,
        globals=globals_,
        types=types,
        code="\n".join(code) if functions else "",
        places=_relative(places, path) if functions else (),
        headers=tuple(headers),
        missing=missing,
        inactive=inactive,
    )


class ContextCache:
    """Header contexts by skeleton and flags, checked against the headers' stamps.

    A keystroke inside a function leaves the skeleton alone, so the language
    server preprocesses again only when a directive or a header changes.
    """

    def __init__(self, size: int = 32) -> None:
        self._size = size
        self._lock = threading.Lock()  # the server's workers share one cache
        self._entries: OrderedDict[
            str, tuple[tuple[tuple[str, float, int], ...], HeaderContext]
        ] = OrderedDict()

    @staticmethod
    def _stamps(
        folder: str, headers: Sequence[str]
    ) -> tuple[tuple[str, float, int], ...]:
        out: list[tuple[str, float, int]] = []
        for name in headers:
            full = os.path.join(folder, name)
            try:
                st = os.stat(full)
            except OSError:
                out.append((full, -1.0, -1))
                continue
            out.append((full, st.st_mtime, st.st_size))
        return tuple(out)

    def get(self, text: str, path: str | None, pre: Preprocessor) -> HeaderContext:
        """The context of `text`, from the cache when nothing it read has changed."""
        folder = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
        key = hashlib.sha256(
            repr((skeleton(text), folder, pre)).encode("utf-8", "surrogateescape")
        ).hexdigest()
        with self._lock:
            hit = self._entries.get(key)
        if hit is not None and hit[0] == self._stamps(folder, hit[1].headers):
            with self._lock:
                if key in self._entries:
                    self._entries.move_to_end(key)
            return hit[1]
        context = header_context(text, path, pre)
        stamps = self._stamps(folder, context.headers)
        with self._lock:
            self._entries[key] = (stamps, context)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return context
