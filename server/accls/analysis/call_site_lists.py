"""Every call of a function, when the file or the whole program provably holds them.

A `static` function is called only from its file, and only by name when no
macro line names it and its address is never taken. An external function is
called from anywhere, unless the workspace index holds the whole program and
nothing outside it can call the function (`remote_calls.ProgramCalls`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.hidden_names import hidden_names
from accls.analysis.method_call_sites import method_calls
from accls.analysis.remote_calls import CallRecord, ProgramCalls, pastes_tokens
from accls.frontend import Call, Function, SourceFile

__all__ = ["CallSiteLists", "Callee", "Site", "callee_of"]


@dataclass(frozen=True, slots=True)
class Callee:
    """A function whose calls are looked for: `file` "" is the analysed file's."""

    name: str
    params: tuple[str, ...]
    static: bool
    file: str = ""


@dataclass(frozen=True, slots=True)
class Site:
    """One call: in the analysed file (`caller`, `call`), or another's (`record`)."""

    caller: Function | None = None
    call: Call | None = None
    record: CallRecord | None = None
    file: str = ""

    @property
    def where(self) -> str:
        """`line 42` in the analysed file, `main.c:42` in another."""
        if self.record is not None:
            return f"{self.file}:{self.record.line}"
        return f"line {self.call.span.line}" if self.call is not None else ""

    def count(self) -> int:
        """How many arguments the call passes."""
        if self.record is not None:
            return len(self.record.args)
        return len(self.call.args) if self.call is not None else 0

    def calling(self) -> Callee:
        """The function the call is in."""
        if self.caller is not None:
            return callee_of(self.caller)
        assert self.record is not None
        r = self.record
        return Callee(r.caller, r.caller_params, r.caller_static, self.file)


def callee_of(fn: Function) -> Callee:
    """The analysed file's function `fn`, as a callee."""
    return Callee(fn.name, tuple(p.name for p in fn.params), fn.static)


class CallSiteLists:
    """The calls of the analysed file and, when usable, the program's others."""

    def __init__(self, source: SourceFile, program: ProgramCalls | None) -> None:
        self.source = source
        self.program = program if program and program.usable(source) else None
        self._hidden: frozenset[str] | None = None  # `hidden_names`, read once

    def own(self, name: str) -> list[Site]:
        """The analysed file's calls of `name`."""
        return [
            Site(caller, call)
            for caller in self.source.functions
            for call in caller.call_sites
            if call.name == name
        ]

    def only_called(self, fn: Callee) -> list[Site] | None:
        """Every call of `fn`, when the file (or the program) holds them all."""
        if fn.file:
            return self._elsewhere(fn)
        if "::" in fn.name:  # a method (static or not) is called as `o.m(..)` too
            return self._method(fn.name)
        if not fn.static:
            return self._program_wide(fn.name)
        if pastes_tokens(self.source) or self._in_headers(fn.name):
            return None  # `p##_relax(..)`, a header's function or macro: unseen
        if self._hidden is None:
            self._hidden = hidden_names(self.source)
        if fn.name in self._hidden:
            return None  # a skipped `#if` branch, `alias("f")`, a spliced name
        code = self.source.code
        for match in re.finditer(rf"\b{re.escape(fn.name)}\b", code):
            start = code.rfind("\n", 0, match.start()) + 1
            if code[start : match.start()].lstrip().startswith("#"):
                return None  # a macro may call it with anything
            if not re.match(r"\s*\(", code[match.end() :]):
                return None  # its address is taken: unknown callers
        return self.own(fn.name) or None

    def _method(self, name: str) -> list[Site] | None:
        """Every call of a method of a class the analysed source file defines."""
        if pastes_tokens(self.source):
            return None
        if self._hidden is None:
            self._hidden = hidden_names(self.source)
        found = method_calls(name, self.source, self._hidden)
        return None if found is None else [Site(c, call) for c, call in found]

    def _in_headers(self, name: str) -> bool:
        """Whether a macro or a header function of the file names `name` at all."""
        word = re.compile(rf"\b{re.escape(name)}\b")
        source = self.source
        texts = [r for _, r in source.macros]
        texts += [r for _, _, r in source.function_macros]
        if source.headers is not None:
            texts.append(source.headers.code)
        return any(word.search(text) for text in texts)

    def _elsewhere(self, fn: Callee) -> list[Site] | None:
        """The calls of a function another file defines."""
        if self.program is None:
            return None
        if not fn.static:
            return self._program_wide(fn.name)
        found = [
            f for f in self.program.files if f.file == fn.file and fn.name in f.statics
        ]
        if len(found) != 1 or fn.name in found[0].escaped:
            return None
        calls = [
            Site(record=r, file=fn.file) for r in found[0].calls if r.callee == fn.name
        ]
        return calls or None

    def _program_wide(self, name: str) -> list[Site] | None:
        """Every call of the external `name`, when no call of it can be unseen."""
        program = self.program
        if program is None or program.open_name(name):
            return None
        own = self.source.function(name)
        definers = program.definers(name)
        if name in program.names_of(self.source) or definers + (own is not None) != 1:
            return None
        calls = self.own(name)
        calls += [Site(record=r, file=f) for f, r in program.calls_of(name)]
        return calls or None
