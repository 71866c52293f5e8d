"""The calls of a project's files, for proofs about every call of a function.

`call_sites` proves two pointer parameters apart when it sees every call of the
function. For a `static` function the file holds them all; for an external one,
only the whole program does. The workspace index records each file's calls as
data (`file_calls`: callee, caller, line and what each argument points into),
and the analysis of one file reads the others' through `ProgramCalls`.

The rule for an external function (`ProgramCalls.usable`, `open_name`): its
calls are all known when the index holds every translation unit of a program (a
compile database or a project folder, fully indexed) and the analysed file is
one of them, some file defines `main` (a program, not a library), no build
entry makes a shared library or exports its symbols (`-shared`, `-fPIC`,
`-fpic`, `-rdynamic`; for a folder, no build file naming a shared library and
no source of a language the index does not read), every file is C (C++ and
Fortran may call a C function under other names), exactly one file defines the
name, none defines a `static` function of that name, it is no C library name,
and no file, macro or project header names it other than in a direct call
(outside comments and strings): its address is never taken, so it is never
called through a pointer, and no macro or header function calls it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from accls.analysis.call_holds import ArgHold, call_holds
from accls.analysis.call_origins import Origin, argument_origin
from accls.analysis.call_values import ValueScope, argument_values
from accls.analysis.errno_calls import read_after_call
from accls.analysis.hidden_names import header_names, hidden_names
from accls.analysis.sequential_loops import in_sequential_loop
from accls.frontend import Directive, Effect, Function, SourceFile
from accls.frontend.library import names_with

__all__ = [
    "LIBRARY_NAMES",
    "CallRecord",
    "FileCalls",
    "ProgramCalls",
    "escaped_names",
    "file_calls",
    "names_used",
    "pastes_tokens",
]

_SKIPPED = re.compile(
    r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.DOTALL
)
_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.MULTILINE)
# The C library's functions without effects: their calls are not recorded, so
# a user function of such a name is never taken as fully seen.
LIBRARY_NAMES = names_with(Effect.PURE) | names_with(Effect.QUERY)
_IDENT = re.compile(r"(?<![\w.])(?<!->)([A-Za-z_]\w*)(?!\w)(\s*\()?")


@dataclass(frozen=True, slots=True, kw_only=True)
class CallRecord:
    """One call of one file: what each argument points into (None: unknown)."""

    callee: str
    caller: str
    caller_params: tuple[str, ...]
    caller_static: bool
    line: int
    args: tuple[Origin | None, ...]
    # The call lies in a loop of its caller (`for`, `while`, `do`): it may repeat.
    in_loop: bool = False
    texts: tuple[str, ...] = ()  # the arguments as written
    holds: tuple[ArgHold, ...] = ()  # the caller's device holds of its arguments
    # The caller (or its file's callers) may read `errno` after the call.
    errno_after: bool = False
    # Each argument's integer value in the caller's file (call_values; None: open).
    values: tuple[int | None, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class FileCalls:
    """What one file says about who calls whom."""

    file: str  # as the user knows it
    calls: tuple[CallRecord, ...]
    escaped: frozenset[str]  # names used other than in a direct call
    statics: frozenset[str]  # its `static` functions
    defined: frozenset[str] = frozenset()  # its external functions
    c_file: bool = True  # C: a C++ or Fortran file may call anything
    main: bool = False  # it defines `main`
    # A macro of it pastes tokens (`p##_relax(..)`): it may name any function.
    pastes: bool = False


def _in_loop(source: SourceFile, function: str, start: int) -> bool:
    """True when byte `start` of `function` lies in one of its loops."""
    return in_sequential_loop(source, function, start) or any(
        n.function == function and n.span.start_byte <= start < n.span.end_byte
        for n in source.nests
    )


def _blanked(code: str) -> str:
    return _SKIPPED.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)


def escaped_names(code: str) -> frozenset[str]:
    """The identifiers the code uses other than as a direct call's name.

    Names in preprocessor lines count whatever follows them (a macro may call a
    function with any arguments); `s.f` and `p->f` name fields, not functions.
    """
    text = _blanked(code)
    out: set[str] = set()
    for line in _DIRECTIVE.finditer(text):
        out.update(m.group(1) for m in _IDENT.finditer(line.group(0)))
    text = _DIRECTIVE.sub("", text)
    out.update(m.group(1) for m in _IDENT.finditer(text) if m.group(2) is None)
    return frozenset(out)


def _record(
    caller: Function, call_args: tuple[str, ...], source: SourceFile
) -> tuple[Origin | None, ...]:
    return tuple(argument_origin(a, caller, source) for a in call_args)


def _named_elsewhere(source: SourceFile, headers: tuple[str, ...]) -> set[str]:
    """Names the file's macros and headers use, a call in them included.

    A header's `static inline` function or a macro may call a function with
    anything, and a header's table may take its address: each name counts.
    """
    texts = [r for _, r in source.macros] + [r for _, _, r in source.function_macros]
    out = {m.group(1) for text in texts for m in _IDENT.finditer(text)}
    for text in headers:
        out |= escaped_names(text) | header_names(text)
    if source.headers is not None:
        out |= escaped_names(source.headers.code)
        out |= {c.name for f in source.headers.functions for c in f.call_sites}
    return out


def names_used(source: SourceFile, headers: tuple[str, ...] = ()) -> frozenset[str]:
    """`escaped_names` of the file, its macros and headers (see `_named_elsewhere`).

    With the names it uses where no call is read (`hidden_names`).
    """
    own = escaped_names(source.code) | hidden_names(source)
    return own | _named_elsewhere(source, headers)


def pastes_tokens(source: SourceFile, headers: tuple[str, ...] = ()) -> bool:
    """Whether a macro of the file or its headers pastes tokens (`p##_relax`).

    A pasted name is read nowhere: the function it names may be called, or its
    address taken, with anything.
    """
    texts = [r for _, r in source.macros] + [r for _, _, r in source.function_macros]
    return any("##" in text for text in (*texts, *headers))


def file_calls(
    source: SourceFile,
    label: str,
    callers: Iterable[Function] | None = None,
    headers: tuple[str, ...] = (),
) -> FileCalls:
    """Every call of the file's functions (or of `callers`), with their origins.

    `headers`: the text of the project headers the file includes.
    """
    functions = source.functions if callers is None else tuple(callers)
    c_file = source.path.endswith((".c", ".h"))
    memo: dict[tuple[str, str], tuple[set[str], list[tuple[int, Directive]]]] = {}
    scope = ValueScope(source)
    calls = tuple(
        CallRecord(
            callee=call.name,
            caller=caller.name,
            caller_params=params,
            caller_static=caller.static,
            line=call.span.line,
            args=_record(caller, call.args, source),
            in_loop=_in_loop(source, caller.name, call.span.start_byte),
            texts=call.args,
            holds=call_holds(source, caller, call, memo),
            errno_after=read_after_call(caller, call, source),
            values=argument_values(scope, caller, call.args),
        )
        for caller in functions
        for params in (tuple(p.name for p in caller.params),)  # one per caller
        for call in caller.call_sites
        if call.name not in LIBRARY_NAMES
    )
    return FileCalls(
        file=label,
        calls=calls if c_file else (),
        escaped=names_used(source, headers),
        statics=frozenset(f.name for f in functions if f.static),
        defined=frozenset(f.name for f in functions if not f.static),
        c_file=c_file,
        main=any(f.name == "main" for f in functions),
        pastes=pastes_tokens(source, headers),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ProgramCalls:
    """The other files' calls, when the index holds every file of the program.

    `sealed` is False when the project may be called from outside (a library,
    exported symbols) or is not fully indexed: then no external function's
    calls are all known.
    """

    files: tuple[FileCalls, ...]
    sealed: bool
    pending: bool = False  # the index is still reading files: calls may be missing
    # What the analysed file's own record says it names (its headers' included).
    own_escaped: frozenset[str] = frozenset()
    # Built on first use (a table of every file's names and calls, by name).
    _escaped: set[str] = field(default_factory=set, init=False, compare=False)
    _by_callee: dict[str, list[tuple[str, CallRecord]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _definers: dict[str, int] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    # `names_used` of the analysed text, read once for all its loops.
    _own_names: dict[str, frozenset[str]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def _fill(self) -> None:
        if self._escaped:
            return
        self._escaped.add("")  # filled, even for a program naming nothing
        self._escaped.update(self.own_escaped)
        for found in self.files:
            self._escaped.update(found.escaped | found.statics)
            for name in found.defined:
                self._definers[name] = self._definers.get(name, 0) + 1
            for call in found.calls:
                self._by_callee.setdefault(call.callee, []).append((found.file, call))

    def open_name(self, name: str) -> bool:
        """Whether a file names `name` other than in a call, or defines it static.

        A library function's name is open too: its calls are not recorded.
        """
        self._fill()
        return name in self._escaped or name in LIBRARY_NAMES

    def names_of(self, source: SourceFile) -> frozenset[str]:
        """`names_used` of the analysed `source`, kept for its other loops."""
        found = self._own_names.get(source.code)
        if found is None:
            self._own_names.clear()  # one analysed text at a time
            found = self._own_names[source.code] = names_used(source)
        return found

    def calls_of(self, name: str) -> list[tuple[str, CallRecord]]:
        """The other files' calls of `name`, with each one's file."""
        self._fill()
        return self._by_callee.get(name, [])

    def definers(self, name: str) -> int:
        """How many of the other files define an external function `name`."""
        self._fill()
        return self._definers.get(name, 0)

    def usable(self, source: SourceFile) -> bool:
        """Whether the program's calls, with `source`'s, are every call there is."""
        return (
            self.sealed
            and not self.pending
            and all(f.c_file and not f.pastes for f in self.files)
            and not pastes_tokens(source)
            and source.path.endswith(".c")
            and (
                any(f.main for f in self.files)
                or any(fn.name == "main" for fn in source.functions)
            )
        )
