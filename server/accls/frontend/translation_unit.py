"""What the compiler sees around a buffer: the real preprocessor's macros and headers.

The buffer itself is still parsed as the user wrote it (every position stays a
position in the user's file); what comes from here is its context, as the build
makes it: the macros defined by the headers, `-D` flags and `#if` branches the
build selects, and the global declarations of the project's own headers. The
preprocessor runs on the buffer's directive lines alone (its *skeleton*), so an
edit inside a function changes nothing here and hits the cache.

The one place that runs the preprocessor and reads its line markers.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Node

from accls.frontend.cpp_files import is_cpp
from accls.frontend.decls import declared_vars
from accls.frontend.fortran_form import is_fortran, normalized
from accls.frontend.macros import MacroTable, define_into
from accls.frontend.model import Var
from accls.frontend.skipped_lines import untaken_includes
from accls.frontend.tsparser import parse_bytes, parse_cpp_bytes, top_level_nodes
from accls.frontend.types import collect_types
from accls.frontend.typetable import TypeTable

__all__ = [
    "ContextCache",
    "HeaderContext",
    "Preprocessor",
    "header_context",
    "skeleton",
]

_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$')
_MISSING = re.compile(r"fatal error: (.+?): No such file or directory")
_DIRECTIVE = re.compile(r"^\s*#")
_MAX_STUBS = 32
_MAX_OUTPUT = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Preprocessor:
    """How to run the user's preprocessor."""

    cc: str = "gcc"
    flags: tuple[str, ...] = ()  # -I/-D/-U/-std/-include, as the build passes them
    timeout_s: float = 10.0
    memory_mb: int = 2048


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
    # (`static inline` ones), and the header file and line of each of its lines.
    code: str = ""
    places: tuple[tuple[str, int], ...] = ()

    @property
    def usable(self) -> bool:
        """True when the preprocessor ran (perhaps without some headers)."""
        return self.problem is None


_MARK = "__accls_active_line__"
_CXX_DEFINING = frozenset(
    {"class_specifier", "struct_specifier", "namespace_definition"}
)


# A string or character literal (kept: it may hold `/*`), a block comment, a line
# comment. A literal ends at its quote or its line; a backslash escapes any one
# character, a line break included.
_COMMENT_OR_LITERAL = re.compile(
    r'"(?:\\[\s\S]?|[^"\\\n])*["\n]?'
    r"|'(?:\\[\s\S]?|[^'\\\n])*['\n]?"
    r"|/\*[\s\S]*?(?:\*/|\Z)"
    r"|//[^\n]*"
)
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blanked(match: re.Match[str]) -> str:
    found = match.group()
    if found[0] != "/":
        return found
    return _NOT_NEWLINE.sub(" ", found)


def _blank_comments(text: str) -> str:
    """`text` with comments turned to spaces, newlines and string literals kept."""
    return _COMMENT_OR_LITERAL.sub(_blanked, text)


def skeleton(text: str) -> str:
    """The buffer's preprocessor directives; every code line becomes a marker.

    Line numbers are kept, so the preprocessor's messages name the user's lines,
    and the markers that survive tell which lines the build compiles.
    """
    out: list[str] = []
    continued = False
    for line in _blank_comments(text).splitlines():
        keep = continued or bool(_DIRECTIVE.match(line))
        keep = keep and not re.match(r"^\s*#\s*pragma\b", line)
        out.append(line if keep else (_MARK if line.strip() else ""))
        continued = keep and line.rstrip().endswith("\\")
    return "\n".join(out) + "\n"


def _run(
    pre: Preprocessor, unit: str, folder: str, stubs: str
) -> subprocess.CompletedProcess[str]:
    # The skeleton is a file, not standard input: compiler wrappers (ccache,
    # scripts) may read their input themselves.
    command = [
        pre.cc,
        "-E",
        "-dD",
        f"-iquote{folder}",
        *pre.flags,
        f"-idirafter{stubs}",
        "-x",
        "c++" if is_cpp(unit) else "c",
        unit,
    ]
    # The address-space bound is set on the child once it runs: preexec_fn is
    # unsafe in the threaded language server.
    with subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="surrogateescape",
        cwd=folder,
        start_new_session=True,  # its own group, killed whole on a time-out
    ) as proc:
        size = pre.memory_mb * 1024 * 1024
        with contextlib.suppress(OSError, ValueError):
            resource.prlimit(proc.pid, resource.RLIMIT_AS, (size, size))
        try:
            out, err = proc.communicate(timeout=pre.timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def _stub(stubs: str, name: str) -> bool:
    """An empty stand-in for a missing header; False if `name` is not a safe path."""
    target = Path(stubs, name).resolve()
    if Path(stubs).resolve() not in target.parents or target.exists():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("", encoding="utf-8")
    return True


def _preprocess(
    text: str, path: str | None, pre: Preprocessor
) -> tuple[str, str, tuple[str, ...]] | str:
    """The preprocessed skeleton, its file name there, and the missing headers.

    A string says why it failed.
    """
    folder = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
    if not os.path.isdir(folder):
        folder = os.getcwd()
    if shutil.which(pre.cc) is None:
        return f"the preprocessor `{pre.cc}` was not found"
    missing: list[str] = []
    with (
        tempfile.TemporaryDirectory(prefix="accls-stubs-") as stubs,
        tempfile.TemporaryDirectory(prefix="accls-unit-") as place,
    ):
        unit = os.path.join(place, os.path.basename(path or "buffer.c"))
        with open(unit, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(skeleton(text))
        for _ in range(_MAX_STUBS):
            try:
                proc = _run(pre, unit, folder, stubs)
            except subprocess.TimeoutExpired:
                return f"the preprocessor timed out after {pre.timeout_s:g} s"
            except OSError as exc:
                return f"the preprocessor `{pre.cc}` could not run ({exc.strerror})"
            if proc.returncode == 0:
                if len(proc.stdout) > _MAX_OUTPUT:
                    return "the preprocessed headers are too large to analyse"
                return proc.stdout, unit, tuple(missing)
            if "nested depth" in proc.stderr:
                return "a recursive #include: a header includes itself, directly or not"
            found = _MISSING.search(proc.stderr)
            if found is None or not _stub(stubs, found.group(1)):
                first = next(
                    (ln for ln in proc.stderr.splitlines() if "error" in ln),
                    proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "",
                )
                return f"the preprocessor failed: {first.strip()[:200]}"
            missing.append(found.group(1))
    return "too many missing headers"


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
        if system or current == "<built-in>":
            continue
        if text.startswith(("#define", "#undef")):
            defines.append(text)
        elif current == unit:
            if _MARK in text:
                active.add(here)
        elif current != "<command-line>":
            code.append(text)
            places.append((os.path.normpath(current), here))
    return defines, code, headers, active, places


def _macro_table(defines: Sequence[str]) -> MacroTable:
    table = MacroTable()
    for line in defines:
        if line.startswith("#undef"):
            name = line.split()[1] if len(line.split()) > 1 else ""
            table.objects.pop(name, None)
            table.functions.pop(name, None)
        else:
            define_into(line, table)
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
    done = _preprocess(text, path, pre)
    if isinstance(done, str):
        return HeaderContext(problem=done)
    output, unit, missing = done
    defines, code, headers, active, places = _split(output, unit)
    macros = _macro_table(defines)
    marked = skeleton(text).splitlines()
    if _MARK in marked and not active:
        # Nothing of the file came out: a wrapper that is no preprocessor.
        return HeaderContext(problem="the preprocessor's output misses the file")
    inactive = frozenset(
        number
        for number, line in enumerate(marked, start=1)
        if line == _MARK and number not in active
    ) | untaken_includes(marked, active)
    globals_, types, functions = _globals(code, macros, is_cpp(path))
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
