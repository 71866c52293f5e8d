"""Where a lifetime's directives can go in a function: statement lines, host accesses.

An executable directive (`enter data`, `update`) must be a statement of its own: it
goes on a line of its own before a statement that starts its line, never between an
`if (...)` or a loop header and the statement it governs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from accls.frontend import (
    Function,
    Loop,
    Ref,
    SourceFile,
    Span,
)
from accls.suggest.device_callees import runs_device_code
from accls.suggest.host_call_effects import call_effects
from accls.suggest.lifetime_uses import KernelIndex, base_name, inside

__all__ = ["HostAccess", "Places"]

_NAMES = re.compile(r"[A-Za-z_]\w*")
# What may precede a call on its statement's line: `x = `, `s->f += `.
_LHS = re.compile(rb"^\s*(?:[A-Za-z_][\w.\->\[\] ]*[-+*/]?=\s*)?$")
# What may precede a call passed as another call's argument on its line.
_ARGUMENT = re.compile(
    rb"^\s*(?!(?:if|while|for|switch|do|else|case|return|goto)\b)[^;{}?]*\($|"
    rb"^\s*(?!(?:if|while|for|switch|do|else|case|return|goto)\b)[^;{}?]*,\s*$"
)
_CHOICE = re.compile(rb"\?|&&|\|\|")
# `if (cond)` up to its arm: the condition holds no `;`, `{` or `}`.
_IF_HEAD = re.compile(rb"if\s*\([^;{}]*\)\s*", re.DOTALL)


@dataclass(frozen=True, slots=True)
class HostAccess:
    """Host code that touches a kept array, with where its updates go."""

    before: int  # a line start
    after: int  # a statement's end
    read: bool
    write: bool
    line: int
    # What touches it, for a section narrower than the whole: the host loop
    # whose references do, or the one reference of a statement; neither for a
    # call (host_sections.py).
    loop: Loop | None = None
    ref: Ref | None = None


class Places:
    """Statement positions and host code of one function."""

    def __init__(
        self, source: SourceFile, fn: Function, within: Sequence[Span] = ()
    ) -> None:
        self.source = source
        self.fn = fn
        self.data = source.data
        self.nests = [n for n in source.nests if n.function == fn.name]
        # `within`: the if arms that hold every device event (and so both ends
        # of the lifetime): inside them, a statement still runs as often as both.
        self._ifs = [
            b.span
            for b in source.branches
            if b.kind in ("if", "else")
            and inside(b.span, fn.span)
            and b.span not in within
        ]
        bodies = {loop.body for loop in self.loops()}
        # `while` loops: the front end reads only `for` loops' facts.
        self._whiles = [
            b.span
            for b in source.branches
            if b.kind == "loop" and inside(b.span, fn.span) and b.span not in bodies
        ]

    def loops(self) -> Iterator[Loop]:
        """Every loop of the function."""
        for nest in self.nests:
            yield from nest.walk()

    def line_of(self, offset: int) -> int:
        """The 1-based line of a byte offset."""
        return self.data.count(b"\n", 0, offset) + 1

    def _line_start(self, offset: int) -> int:
        return self.data.rfind(b"\n", 0, offset) + 1

    def _after_statement(self, start: int) -> bool:
        """True when the code before the line at `start` ends a statement or block."""
        before = self.data[:start].rstrip()
        if not before or before.endswith((b";", b"{", b"}", b"*/")):
            return True
        last = before[before.rfind(b"\n") + 1 :].lstrip()
        return last.startswith((b"#", b"//"))

    def _placeable(self, offset: int) -> int | None:
        """The line start before `offset` when a directive line can go there."""
        start = self._line_start(offset)
        if self.data[start:offset].strip() or not self._after_statement(start):
            return None
        return start

    def unconditional(self, span: Span) -> bool:
        """True when no `if` arm of the function holds `span` (but those `within`)."""
        return not any(inside(span, arm) for arm in self._ifs)

    def loop_statement(self, loop: Loop) -> tuple[int, int] | None:
        """(line start, end) of a loop statement, when directives can go around it."""
        start = self._placeable(loop.keyword.start_byte)
        if start is None or not self.unconditional(loop.span):
            return None
        return start, loop.span.end_byte

    def _line_statement(self, offset: int) -> tuple[int, int] | None:
        """(line start, line end) of a one-line statement holding `offset`."""
        start = self._line_start(offset)
        end = self.data.find(b"\n", offset)
        end = len(self.data) if end < 0 else end
        line = self.data[start:end].strip()
        if not line.endswith(b";") or line.count(b";") != 1:
            return None
        if b"{" in line or b"}" in line or line.startswith((b"return", b"#")):
            return None
        if not self._after_statement(start):
            return None
        return start, start + len(self.data[start:end].rstrip())

    def _while_statement(self, body: Span) -> tuple[int, int] | None:
        """(line start, end) of the `while (...)` statement whose body is `body`."""
        head = self.data[self.fn.span.start_byte : body.start_byte]
        at = head.rfind(b"while")
        if at < 0 or not head[at + 5 :].strip().startswith(b"("):
            return None
        if not head[at + 5 :].strip().endswith(b")"):
            return None
        start = self._placeable(self.fn.span.start_byte + at)
        if start is None:
            return None
        whole = Span(start, body.end_byte, body.start, body.end)
        return (start, body.end_byte) if self.unconditional(whole) else None

    def outer_while(self, span: Span) -> Span | None:
        """The outermost `while` body of the function holding `span`, if any."""
        found = [b for b in self._whiles if inside(span, b)]
        return min(found, key=lambda b: b.start_byte) if found else None

    def event_statement(self, span: Span) -> tuple[int, int] | None:
        """(line start, end) of the function-level statement that runs `span`."""
        for nest in self.nests:
            if inside(span, nest.span):
                found = self.loop_statement(nest)
                body = self.outer_while(nest.span)
                return found if body is None else self._while_statement(body)
        body = self.outer_while(span)
        if body is not None:
            return self._while_statement(body)
        return self.call_statement(span)

    def call_statement(self, span: Span) -> tuple[int, int] | None:
        """(line start, end) of the statement that is a call (or assigns one).

        Or a one-line statement that passes the call's value on, `printf("%g",
        norm(n, r));`: with no `?:`, `&&` or `||` it runs the call exactly once.
        """
        start = self._line_start(span.start_byte)
        nested = not _LHS.match(self.data[start : span.start_byte])
        if nested and not _ARGUMENT.match(self.data[start : span.start_byte]):
            return None
        if not self.unconditional(span):
            return None
        found = self._line_statement(span.start_byte)
        if found is not None and nested and _CHOICE.search(self.data[slice(*found)]):
            return None
        return found

    def written(self, first: int, last: int, names: set[str]) -> bool:
        """True when code in [first, last) assigns one of `names` or takes it."""
        return any(
            first <= r.span.start_byte < last
            and r.name in names
            and not r.subscripts
            and not r.deref
            and (r.is_write or r.escapes)
            for r in self.fn.refs
        )

    def in_loop(self, span: Span, first: int, last: int) -> bool:
        """True when a loop of the function within [first, last) repeats `span`."""
        if any(inside(span, b) and first <= b.start_byte < last for b in self._whiles):
            return True
        return any(
            first <= loop.span.start_byte < last
            and inside(span, loop.span)
            and span != loop.span
            for loop in self.loops()
        )

    def repeats_unknown(self, offset: int, first: int, last: int) -> bool:
        """True when a `while` loop in [first, last) repeats the code at `offset`."""
        return any(
            b.start_byte <= offset < b.end_byte and first <= b.start_byte < last
            for b in self._whiles
        )

    def trips(self, offset: int, first: int, last: int) -> list[Loop]:
        """The `for` loops within [first, last) that repeat the code at `offset`."""
        return [
            loop
            for loop in self.loops()
            if first <= loop.span.start_byte < last
            and loop.body.start_byte <= offset < loop.body.end_byte
        ]

    def used_after(self, name: str, last: int) -> bool:
        """True when the host may read the array after `last`."""
        var = self.fn.lookup(name)
        if var is None or var.scope != "local":
            return True  # a global: other functions read it
        frees = [
            c.span for c in self.fn.call_sites if c.name == "free" and c.args == (name,)
        ]
        return any(
            r.span.start_byte >= last
            and base_name(r.name) == name
            and not any(inside(r.span, f) for f in frees)
            for r in self.fn.refs
        )

    def _host_loop(self, offset: int, events: Sequence[Span]) -> Loop | None:
        """The outermost loop holding `offset` that holds no device event."""
        level = list(self.nests)
        while level:
            loop = next(
                (x for x in level if x.span.start_byte <= offset < x.span.end_byte),
                None,
            )
            if loop is None:
                return None
            if not any(inside(e, loop.span) for e in events):
                return loop
            level = list(loop.children)
        return None

    def _access(
        self,
        offset: int,
        read: bool,
        write: bool,
        events: Sequence[Span],
        ref: Ref | None = None,
    ) -> HostAccess | None:
        loop = self._host_loop(offset, events)
        if loop is not None:
            found = self.loop_statement(loop)
            if found is None:
                # Inside an `if` arm: still one statement, the update goes with it.
                start = self._placeable(loop.keyword.start_byte)
                found = None if start is None else (start, loop.span.end_byte)
        else:
            found = self._line_statement(offset) or self._if_statement(offset)
        if found is None:
            return None
        at = (found[0], found[1], read, write, self.line_of(found[0]))
        if loop is not None:
            return HostAccess(*at, loop=loop if ref is not None else None)
        return HostAccess(*at, ref=ref)

    def _if_statement(self, offset: int) -> tuple[int, int] | None:
        """(line start, end) of a braceless `if (...) stmt;` holding `offset`.

        The update cannot go between the condition and its statement; before the
        whole `if` it runs whether or not the arm does, which is as correct. Not
        with an `else` arm: the statement's end would not be the `if`'s.
        """
        arms = [b for b in self.source.branches if b.kind == "if"]
        arm = next(
            (
                b.span
                for b in reversed(arms)
                if b.span.start_byte <= offset < b.span.end_byte
                and inside(b.span, self.fn.span)
            ),
            None,
        )
        if arm is None or self.data[arm.start_byte : arm.start_byte + 1] == b"{":
            return None
        if self.data[arm.end_byte :].lstrip().startswith(b"else"):
            return None
        head = self.data[self.fn.span.start_byte : arm.start_byte]
        at = head.rfind(b"if")
        if at < 0 or not _IF_HEAD.fullmatch(head[at:]):
            return None
        if at > 0 and (head[at - 1 : at].isalnum() or head[at - 1 : at] == b"_"):
            return None  # `elif`, `diff`: no `if` keyword
        start = self._placeable(self.fn.span.start_byte + at)
        if start is None:
            return None
        end = arm.end_byte
        if not self.data[self._line_start(end) : end].rstrip().endswith(b";"):
            return None
        return start, end

    def host_accesses(
        self,
        name: str,
        first: int,
        last: int,
        events: Sequence[Span],
        index: KernelIndex,
    ) -> list[HostAccess] | None:
        """Host code in [first, last) touching `name`; None if an update cannot go."""
        out: list[HostAccess] = []
        for ref in self.fn.refs:
            at = ref.span.start_byte
            if not first <= at < last or base_name(ref.name) != name:
                continue
            if not (ref.subscripts or ref.deref) or any(
                inside(ref.span, e) for e in events
            ):
                continue
            found = self._access(at, ref.is_read, ref.is_write, events, ref)
            if found is None:
                return None
            out.append(found)
        for call in self.fn.call_sites:
            at = call.span.start_byte
            if not first <= at < last or any(inside(call.span, e) for e in events):
                continue
            read, write = call_effects(self.source, self.fn, name, call)
            if not read and not write:
                continue
            if call.name == "free" or runs_device_code(call.name, index):
                # Freed in between, a kernel call we cannot map, or host code
                # that runs its own kernels on the array (device_callees.py).
                return None
            found = self._access(at, read, write, events)
            if found is None:
                return None
            out.append(found)
        return out
