"""Which OpenMP locks are held at each point of a parallel region."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from accls.analysis.mhp_constructs import contains, first_word
from accls.frontend import Function, Region, SourceFile, Span

__all__ = ["LockTable", "lock_table", "shared_locks"]

_SET = frozenset({"omp_set_lock", "omp_set_nest_lock"})
_UNSET = frozenset({"omp_unset_lock", "omp_unset_nest_lock"})
_TEST = frozenset({"omp_test_lock", "omp_test_nest_lock"})
_ADDRESS = re.compile(r"^&\s*\(?\s*([A-Za-z_][\w.\[\]>-]*?)\s*\)?$")
_ELEMENT = re.compile(r"^&\s*([A-Za-z_]\w*\s*\[[^\[\]]+\])\s*$")


class _Privacy(Protocol):
    def is_private(self, name: str, pos: int, chain: list[Region]) -> bool: ...


class _HasId(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def span_end(self) -> int: ...


@dataclass(frozen=True, slots=True)
class _LockCall:
    pos: int
    line: int
    kind: str  # "set", "unset", "test"
    lock: str  # "L" for `&L`; "" when passed through a pointer
    text: str  # the argument as written
    context: int  # innermost task id, -1 for the implicit task
    guards: frozenset[int]  # start bytes of the `if` arms around the call


@dataclass(frozen=True, slots=True)
class LockTable:
    """Lock calls of one region, in program order, and the omp_* call spans."""

    calls: tuple[_LockCall, ...]
    call_spans: tuple[Span, ...]
    guards: tuple[Span, ...]

    def in_call(self, pos: int) -> bool:
        """True inside the arguments of an OpenMP runtime call (`&lock`)."""
        return any(s.start_byte <= pos < s.end_byte for s in self.call_spans)

    def held(
        self, pos: int, context: int
    ) -> tuple[frozenset[str], frozenset[str], str]:
        """Locks surely held at `pos`, locks held on some paths only, and a doubt."""
        state: dict[str, _LockCall] = {}
        depth: dict[str, int] = {}
        doubt = ""
        around = {g.start_byte for g in self.guards if g.start_byte <= pos < g.end_byte}
        for call in self.calls:
            if call.pos >= pos:
                break
            if call.context != context:
                continue
            if not call.lock:
                if call.kind != "unset":
                    doubt = f"the lock `{call.text}` (line {call.line}) is passed "
                    doubt += "through a pointer; knowing what it points to decides"
                continue
            if call.kind == "test":
                doubt = f"`omp_test_lock({call.text})` at line {call.line} "
                doubt += "takes the lock only when it succeeds"
                continue
            if call.kind == "set":
                depth[call.lock] = depth.get(call.lock, 0) + 1
                state.setdefault(call.lock, call)
            elif depth.get(call.lock, 0) > 1:
                depth[call.lock] -= 1  # a nestable lock still held once more
            else:
                depth.pop(call.lock, None)
                state.pop(call.lock, None)
        sure = {f"lock:{k}" for k, c in state.items() if c.guards <= around}
        partial = {f"lock:{k}" for k, c in state.items() if not c.guards <= around}
        return frozenset(sure), frozenset(partial), doubt


def lock_table(
    region: Region,
    fn: Function,
    source: SourceFile,
    tasks: Sequence[_HasId],
    spins: Sequence[tuple[str, int, int, int]] = (),
    indexed: bool = False,
) -> LockTable:
    """The lock calls of `fn` inside `region`.

    `spins` adds hand-made locks: (flag, where it is held, where released, line).
    `indexed` names an element of a lock array by its subscript as written
    (`locks[i%8]`): the caller compares the elements.
    """
    start, end = region.span.start_byte, region.span.end_byte
    guards = tuple(
        b.span
        for b in source.branches
        if b.kind in ("if", "else") and start <= b.span.start_byte < end
    )
    calls: list[_LockCall] = []
    spans: list[Span] = []
    for call in fn.call_sites:
        pos = call.span.start_byte
        if not start <= pos < end or not call.name.startswith("omp_"):
            continue
        spans.append(call.span)
        kind = (
            "set"
            if call.name in _SET
            else "unset"
            if call.name in _UNSET
            else "test"
            if call.name in _TEST
            else ""
        )
        if not kind:
            continue
        text = source.data[call.span.start_byte : call.span.end_byte].decode(
            "utf-8", "replace"
        )
        arg = text[text.find("(") + 1 : text.rfind(")")].strip()
        match = _ADDRESS.match(arg) or (_ELEMENT.match(arg) if indexed else None)
        if kind == "test" and match is not None:
            taken = _test_taken(source, call.span, start, end)
            if taken is not None:
                pos, kind = taken, "set"  # held from there on; not before
        inside = [t.id for t in tasks if t.id <= pos < t.span_end]
        calls.append(
            _LockCall(
                pos=pos,
                line=call.span.line,
                kind=kind,
                lock="".join(match.group(1).split()) if match else "",
                text=arg,
                context=inside[-1] if inside else -1,
                guards=frozenset(
                    g.start_byte for g in guards if g.start_byte <= pos < g.end_byte
                ),
            )
        )
    for flag, held, released, line in spins:
        for pos, kind in ((held, "set"), (released, "unset")):
            inside = [t.id for t in tasks if t.id <= pos < t.span_end]
            calls.append(
                _LockCall(
                    pos=pos,
                    line=line,
                    kind=kind,
                    lock=f"spin:{flag}",
                    text=flag,
                    context=inside[-1] if inside else -1,
                    guards=frozenset(
                        g.start_byte for g in guards if g.start_byte <= pos < g.end_byte
                    ),
                )
            )
    calls.sort(key=lambda c: c.pos)
    return LockTable(tuple(calls), tuple(spans), guards)


_BASE = re.compile(r"[A-Za-z_]\w*")


def shared_locks(table: LockTable, env: _Privacy, inner: list[Region]) -> LockTable:
    """The table without the calls on a lock each thread has its own copy of.

    A lock declared in the region (or named in `private`) is one lock per thread:
    taking it excludes no other thread. Calls inside a nested team or a task are
    kept: the threads or tasks there may share the enclosing thread's lock.
    """
    kept = []
    for call in table.calls:
        base = _BASE.match(call.lock)
        chain = [c for c in inner if contains(c, call.pos)]
        nested = any(first_word(c) in _SHARING for c in chain)
        mine = base is not None and env.is_private(base.group(0), call.pos, chain)
        if call.lock.startswith("spin:") or nested or not mine:
            kept.append(call)
    return replace(table, calls=tuple(kept))


_SHARING = frozenset({"parallel", "task", "taskloop", "teams"})


_SPIN = re.compile(rb"while\s*\(\s*!\s*$")
_IF = re.compile(rb"if\s*\(\s*$")


def _test_taken(source: SourceFile, call: Span, start: int, end: int) -> int | None:
    """Where an `omp_test_lock` surely holds its lock, None when the code is not plain.

    `while (!omp_test_lock(&l)) body` holds it after the loop (not in the body);
    `if (omp_test_lock(&l)) arm` holds it in the arm.
    """
    data = source.data
    before = data[max(start, call.start_byte - 40) : call.start_byte]
    for b in source.branches:
        if not (start <= b.span.start_byte < end) or b.span.start_byte < call.end_byte:
            continue
        between = data[call.end_byte : b.span.start_byte]
        if between.strip() != b")":
            continue
        if b.kind == "loop" and _SPIN.search(before):
            return b.span.end_byte
        if b.kind == "if" and _IF.search(before):
            return b.span.start_byte
    return None
