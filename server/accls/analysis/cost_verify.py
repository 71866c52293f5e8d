"""Verification passes: a reduction after the timed part whose result only reports.

`for (iter...) { <kernels> }  for (j...) checksum += c[j];
if (fabs(checksum - ref) > eps) { printf("ERROR"); exit(1); }`: the time loop
repeats the computation; the sum after it runs once, reads the results, and its
value decides nothing but a PASS/FAIL message. Experts leave such checks serial:
they sit outside the timed part, and a region there only changes the rounding of
the number printed. The rule needs all of:

- the loop runs once: it is a top-level loop (in no `while` or `do` either) of a
  function that runs once per run of the program (`main`, or one every call of
  which lies outside any loop of a function that runs once);
- before it, in program order, a loop repeats work: a top-level loop whose
  variable indexes no data (a time step, an iteration count) and that holds loops
  (nested, or in a function of the file it calls), or such a `do ... while`
  (`sequential_loops`); in the same function, in a function called before it, or
  before the call that leads to it;
- it writes no memory, reads memory (it inspects data computed earlier), and sums
  into at least one reduction;
- it is light: at most LIGHT_UNITS work units per element (a load and an add),
  or it only compares data stored earlier: its variables index arrays and are no
  values, and it calls nothing (a norm of the difference of two results,
  cost_compare). A check that computes a reference value per element, or calls a
  function, is worth a region: experts share those out as often as not;
- every use of each sum after the loop is an argument of an output call, the
  condition of an `if` whose branch calls nothing but output, exit and pure
  functions, a `return` whose every call is used so, or a plain scalar that is
  itself used only so.

A loop that is the computation itself (`for (i...) pi += f(i)` in a program that
prints `pi`) reads no memory or follows no repeated part, and keeps its pragma.
"""

from __future__ import annotations

import re

from accls.analysis.analyze import FileAnalysis
from accls.analysis.cost_compare import compares_stored
from accls.analysis.cost_light import LIGHT_UNITS
from accls.analysis.cost_once import repeats, runs_once
from accls.analysis.model import ScalarClass
from accls.analysis.sequential_loops import (
    in_sequential_loop,
    repeating_do_loops,
    sequential_line,
)
from accls.frontend import EXIT_CALLS, Function, Loop, SourceFile
from accls.frontend.library import Effect, library_function

__all__ = ["verify_reason"]

_DEPTH = 3  # assignments, returns and callers followed
_REPORTING = frozenset({Effect.IO, Effect.PURE, Effect.QUERY})
_KEYWORDS = frozenset({"if", "while", "for", "switch", "return", "sizeof", "else"})
_NOISE = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|^[ \t]*#[^\n]*",
    re.DOTALL | re.MULTILINE,
)
_CONTROL = re.compile(r"(if|while|for|switch)\s*\(")
_ASSIGN = re.compile(r"(?:[A-Za-z_][\w\s\*]*?\s)?\**\s*([A-Za-z_]\w*)\s*[-+*/]?=(?!=)")
_CALL = re.compile(r"([A-Za-z_]\w*)\s*\(")
_STORE = re.compile(r"(?:\]|->\s*\w+|\*\s*\w+)\s*[-+*/]?=(?!=)")


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


class _Text:
    """A function's text with comments, strings and directives blanked out."""

    def __init__(self, source: SourceFile, fn: Function) -> None:
        self.base = fn.span.start_byte
        raw = source.data[fn.span.start_byte : fn.span.end_byte].decode("latin-1")
        self.text = _NOISE.sub(_blank, raw)

    def uses(self, name: str, after: int) -> list[int]:
        """Offsets (in the file) of the words `name` after the file's byte `after`."""
        pattern = re.compile(r"(?<![\w.>])" + re.escape(name) + r"\b")
        start = max(after - self.base, 0)
        return [m.start() + self.base for m in pattern.finditer(self.text, start)]

    def statement(self, at: int) -> tuple[str, int]:
        """The text of the statement holding file byte `at` up to it, and its end."""
        rel = at - self.base
        begin = max(self.text.rfind(c, 0, rel) for c in ";{}") + 1
        end = self.text.find(";", rel)
        return self.text[begin:rel], (len(self.text) if end < 0 else end) + self.base


class _Texts:
    """The blanked text of each function of one file, made once per question."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self._made: dict[str, _Text] = {}

    def of(self, fn: Function) -> _Text:
        """The blanked text of `fn`."""
        if fn.name not in self._made:
            self._made[fn.name] = _Text(self.source, fn)
        return self._made[fn.name]


def _close(text: str, open_at: int) -> int:
    """The offset of the `)` matching the `(` at `open_at`, or -1 if none in `text`."""
    depth = 0
    for k in range(open_at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            return k
    return -1


def _branch_reports(text: _Text, cond_end: int) -> bool:
    """True when the statement an `if` controls calls only output, exit, pure code."""
    rel = cond_end - text.base + 1
    body = text.text[rel:].lstrip()
    if body.startswith("{"):
        depth, stop = 0, len(body)
        for k, ch in enumerate(body):
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if depth == 0:
                stop = k
                break
        body = body[:stop]
    else:
        body = body.split(";", 1)[0]
    if _STORE.search(body):
        return False  # it writes memory: the value steers the data
    for name in _CALL.findall(body):
        if name in _KEYWORDS or name in EXIT_CALLS:
            continue
        entry = library_function(name)
        if entry is None or entry.effect not in _REPORTING:
            return False
    return True


def _reports(texts: _Texts, fn: Function, at: int, depth: int) -> bool:
    """True when the value used at file byte `at` of `fn` feeds only reports."""
    text = texts.of(fn)
    pre, end = text.statement(at)
    offset = at - len(pre)
    while True:
        stripped = pre.lstrip()
        offset += len(pre) - len(stripped)
        pre = stripped
        if pre.startswith("else") and not re.match(r"else\w", pre):
            offset, pre = offset + 4, pre[4:]
            continue
        control = _CONTROL.match(pre)
        if control is None:
            break
        close = _close(pre, control.end() - 1)
        if close < 0:  # the value is in the condition itself
            paren = offset - text.base + control.end() - 1
            cond_end = _close(text.text, paren)
            return (
                control.group(1) == "if"
                and cond_end >= 0
                and _branch_reports(text, cond_end + text.base)
            )
        offset, pre = offset + close + 1, pre[close + 1 :]
    if re.match(r"return\b", pre):
        return depth < _DEPTH and _result_reports(texts, fn.name, depth + 1)
    call = _CALL.match(pre)
    if call is not None and _close(pre, call.end() - 1) < 0:
        entry = library_function(call.group(1))
        return entry is not None and entry.effect is Effect.IO
    assign = _ASSIGN.match(pre)
    if assign is None or depth >= _DEPTH:
        return False
    return _scalar_reports(texts, fn, assign.group(1), end, depth + 1)


def _scalar_reports(
    texts: _Texts, fn: Function, name: str, after: int, depth: int
) -> bool:
    """True when every use of scalar `name` in `fn` after byte `after` reports."""
    var = fn.lookup(name)
    if var is None or var.dims or var.scope == "param":
        return False  # a global or an array: read elsewhere too
    uses = texts.of(fn).uses(name, after)
    return all(_reports(texts, fn, at, depth) for at in uses)


def _result_reports(texts: _Texts, name: str, depth: int) -> bool:
    """True when every call of `name` in the file uses its result only to report."""
    calls = [
        (caller, call.span.start_byte)
        for caller in texts.source.functions
        for call in caller.call_sites
        if call.name == name
    ]
    return bool(calls) and all(
        _reports(texts, caller, at, depth) for caller, at in calls
    )


def _holds_loops(source: SourceFile, outer: Loop) -> bool:
    """True when `outer` holds a loop: nested, or in a function of the file it calls."""
    called = {c.name for c in outer.calls if c.name != outer.function}
    return bool(outer.children) or any(n.function in called for n in source.nests)


def _repeater(source: SourceFile, name: str | None, before: int | None) -> int | None:
    """The line of a top-level loop of `name` that repeats loops (before a byte)."""
    for outer in source.nests:
        if outer.function != name or (
            before is not None and outer.span.end_byte > before
        ):
            continue
        if repeats(outer) and _holds_loops(source, outer):
            return outer.line
    for body in repeating_do_loops(source, name):
        if before is None or body.span.end_byte <= before:
            return sequential_line(source, body)
    return None


def _after_repeat(source: SourceFile, name: str, at: int, depth: int = 0) -> int | None:
    """The line of a repeating loop that runs before byte `at` of function `name`."""
    line = _repeater(source, name, at)
    if line is not None:
        return line
    fn = source.function(name)
    if fn is None:
        return None
    for call in fn.call_sites:
        if call.span.start_byte < at and call.name != name:
            line = _repeater(source, call.name, None)
            if line is not None:
                return line
    if depth >= _DEPTH:
        return None
    for caller in source.functions:
        for call in caller.call_sites:
            if call.name == name and caller.name != name:
                line = _after_repeat(
                    source, caller.name, call.span.start_byte, depth + 1
                )
                if line is not None:
                    return line
    return None


def verify_reason(analysis: FileAnalysis, loop: Loop, light: int | None) -> str:
    """Why `loop` is a light verification pass after the timed part, or "".

    `light` is the work units of one innermost iteration of its nest (None when
    unknown): a check that computes more per element keeps its pragma.
    """
    source = analysis.source
    fn = source.function(loop.function)
    if light is None:
        return ""
    compares = light > LIGHT_UNITS
    if compares and not compares_stored(source, loop):
        return ""
    if fn is None or all(n.id != loop.id for n in source.nests):
        return ""
    if in_sequential_loop(source, fn.name, loop.id):
        return ""  # in a `while` or `do` body: it runs more than once
    memory = [r for r in loop.refs if r.subscripts or r.deref]
    if any(r.is_write for r in memory) or not any(r.is_read for r in memory):
        return ""
    sums = sorted(
        {s.name for s in analysis.of(loop).scalars if s.cls is ScalarClass.REDUCTION}
    )
    if not sums or not runs_once(source, fn.name):
        return ""
    line = _after_repeat(source, fn.name, loop.span.start_byte)
    if line is None:
        return ""
    after = loop.span.end_byte
    texts = _Texts(source)
    if not all(texts.of(fn).uses(name, after) for name in sums):
        return ""  # a sum nobody reads checks nothing
    if not all(_scalar_reports(texts, fn, name, after, 0) for name in sums):
        return ""
    names = ", ".join(f"`{n}`" for n in sums)
    return (
        f"verification: it runs once, after the loop at line {line} that repeats "
        f"the computation, and {names} only feeds output and a pass/fail test; "
        + (
            "it only compares data stored earlier (its variables only index arrays), "
            if compares
            else f"about {light} work units per element, "
        )
        + "bound by memory: experts leave such light checks serial"
    )
