"""ACC127: OpenACC `async` work whose data is used before a `wait` orders it.

An `async(q)` construct returns at once; its kernels and transfers run on queue
`q` until a `wait` (directive, clause or runtime call) covers `q`. The host, or
work on another queue, that touches the same data before then races with it.
The function is replayed in program order: each queue keeps the set of earlier
operations that anything it runs next is ordered after, and so does the host.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from accls.analysis.acc_queue_ops import (
    Cells,
    QueueOp,
    acc_pragmas,
    overlap,
    present_arrays,
    queue_ops,
    queue_text,
    queues,
    ref_cell,
)
from accls.analysis.concurrency_kinds import ASYNC_RACE
from accls.analysis.finding_types import Finding, finding
from accls.frontend import Function, Ref, SourceFile

__all__ = ["async_findings"]

# `acc_async_test` polls; code that reads after it loops until it says done.
_HOST_WAITS = frozenset({"acc_wait", "acc_async_wait", "acc_async_test"})
# acc_wait_any waits for one queue of a list: which one is known only at run time.
_HOST_WAITS_ALL = frozenset(
    {"acc_wait_all", "acc_async_wait_all", "acc_wait_any", "acc_async_test_all"}
)
_QUEUE_WAITS = frozenset({"acc_wait_async"})  # acc_wait_async(q, on)
_SYNC = "the synchronous queue"


@dataclass(slots=True)
class _Replay:
    """What is ordered before the host and before each queue's next operation."""

    default: str = ""
    host: set[int] = field(default_factory=set)
    tails: dict[str, set[int]] = field(default_factory=dict)

    def queue(self, text: str) -> str:
        return text or self.default

    def waited(self, waits: tuple[str, ...]) -> set[int]:
        """Operations a wait on `waits` covers; () or an unknown queue: every one."""
        known = all(w.isdigit() or w in self.tails for w in waits)
        if not waits or not known:
            return set().union(*self.tails.values()) if self.tails else set()
        return set().union(*(self.tails.get(self.queue(w), set()) for w in waits))


def _conflict(one: Cells, other: Cells) -> str | None:
    for name, cell in sorted(one):
        if any(n == name and overlap(cell, c) for n, c in other):
            return name
    return None


def _device_conflict(first: QueueOp, second: QueueOp) -> str | None:
    return _conflict(first.dev_writes, second.dev_reads | second.dev_writes) or (
        _conflict(first.dev_reads, second.dev_writes)
    )


def _spell(queue: str) -> str:
    return f"wait({queue})" if queue else "wait"


def _statement_line(source: SourceFile, pos: int) -> int | None:
    """The start of `pos`'s line when a statement starts there."""
    data = source.data
    start = data.rfind(b"\n", 0, pos) + 1
    if any(mark in data[start:pos] for mark in (b";", b"{", b"}", b"(")):
        return None
    before = data[:start].rstrip()
    last = before[before.rfind(b"\n") + 1 :].lstrip()
    if before and before[-1:] not in (b";", b"{", b"}") and not last.startswith(b"#"):
        return None
    return start


def _host_race(source: SourceFile, op: QueueOp, queue: str, ref: Ref) -> Finding | None:
    cell = frozenset({(ref.name, ref_cell(ref))})
    touched = op.host_reads | op.host_writes if ref.is_write else op.host_writes
    if _conflict(cell, touched) is None:
        return None
    made = finding(
        ASYNC_RACE,
        ref.span,
        var=ref.render(),
        access="written" if ref.is_write else "read",
        use=ref.span.line,
        who="by the host",
        queue=queue or "default",
        line=op.line,
        fix=f"add `#pragma acc {_spell(queue)}` before it",
    )
    start = _statement_line(source, ref.span.start_byte)
    if start is None:
        return made
    end = source.data.find(b"\n", start)
    line = source.data[start : end if end >= 0 else len(source.data)]
    indent = line[: len(line) - len(line.lstrip())].decode("utf-8", "replace")
    fix = (start, f"{indent}#pragma acc {_spell(queue)}\n")
    return Finding(made.kind, made.span, made.args, made.severity, fix)


def _queue_race(
    first: QueueOp, queue: str, second: QueueOp, where: str
) -> Finding | None:
    name = _device_conflict(first, second)
    if name is None or second.directive.span is None:
        return None
    return finding(
        ASYNC_RACE,
        second.directive.span,
        var=name,
        access="written" if any(n == name for n, _ in second.dev_writes) else "read",
        use=second.line,
        who=f"on {where}",
        queue=queue or "default",
        line=first.line,
        fix=f"add `{_spell(queue)}` to the pragma at line {second.line}",
    )


def _events(
    source: SourceFile, fn: Function, ops: list[QueueOp]
) -> list[tuple[int, str, object]]:
    events: list[tuple[int, str, object]] = [(op.pos, "op", op) for op in ops]
    for pos, _, directive in acc_pragmas(source, fn):
        default = directive.clause("default_async")
        if directive.name.split()[:1] == ["set"] and default is not None:
            events.append((pos, "default", queue_text(default.args)))
        if directive.name.split()[:1] != ["wait"]:
            continue
        listed = directive.clause("")
        target = directive.clause("async")
        waits = queues(listed.args if listed else None)
        if target is None:
            events.append((pos, "host", waits))
        else:
            events.append((pos, "queue", (waits, queue_text(target.args))))
    for call in fn.call_sites:
        pos = call.span.start_byte
        if call.name in _HOST_WAITS_ALL:
            events.append((pos, "host", ()))
        elif call.name in _HOST_WAITS:
            events.append((pos, "host", tuple(call.args[:1])))
        elif call.name in _QUEUE_WAITS and len(call.args) == 2:
            events.append((pos, "queue", ((call.args[0],), call.args[1])))
        elif call.name == "acc_wait_all_async" and call.args:
            events.append((pos, "queue", ((), call.args[0])))
        elif call.name == "acc_set_default_async" and call.args:
            events.append((pos, "default", call.args[0]))
    compute = [(op.pos, op.end) for op in ops if op.compute]
    for ref in fn.refs:
        pos = ref.span.start_byte
        if any(lo <= pos < hi for lo, hi in compute):
            continue
        var = fn.lookup(ref.name)
        if var is not None and var.is_array and not (ref.subscripts or ref.deref):
            continue  # the pointer, not the data
        events.append((pos, "ref", ref))
    events.sort(key=lambda e: e[0])
    return events


def _replay(source: SourceFile, fn: Function, ops: list[QueueOp]) -> Iterable[Finding]:
    state = _Replay()
    issued: list[tuple[int, QueueOp, str]] = []  # async ops with their queue
    seen: set[tuple[int, str]] = set()
    for _, kind, value in _events(source, fn, ops):
        if kind == "default" and isinstance(value, str):
            state.default = value
        elif kind == "host" and isinstance(value, tuple):
            state.host |= state.waited(value)
        elif kind == "queue" and isinstance(value, tuple):
            waits, on = value
            tail = state.tails.setdefault(state.queue(on), set())
            tail |= state.waited(waits) | state.host
        elif kind == "ref" and isinstance(value, Ref):
            for index, op, queue in issued:
                if index in state.host or (index, value.name) in seen:
                    continue
                if value.span.start_byte < op.end:
                    continue
                made = _host_race(source, op, queue, value)
                if made is not None:
                    seen.add((index, value.name))
                    yield made
        elif kind == "op" and isinstance(value, QueueOp):
            yield from _issue(state, issued, value)


def _issue(
    state: _Replay, issued: list[tuple[int, QueueOp, str]], op: QueueOp
) -> Iterable[Finding]:
    index = len(issued)
    queue = None if op.queue is None else state.queue(op.queue)
    before = set(state.host)
    if queue is not None:
        before |= state.tails.get(queue, set())
    if op.waits is not None:
        before |= state.waited(op.waits)
    where = _SYNC if queue is None else f"queue `{queue or 'default'}`"
    for other, earlier, earlier_queue in issued:
        if other in before or earlier_queue == queue:
            continue
        made = _queue_race(earlier, earlier_queue, op, where)
        if made is not None:
            yield made
    issued.append((index, op, queue if queue is not None else "\0sync"))
    if queue is None:
        state.host |= before | {index}
    else:
        state.tails[queue] = before | {index}


def async_findings(source: SourceFile) -> list[Finding]:
    """ACC127 for each function with `async` OpenACC constructs."""
    if b"async" not in source.data:
        return []
    present = present_arrays(source)
    out: list[Finding] = []
    for fn in source.functions:
        if b"async" not in source.data[fn.span.start_byte : fn.span.end_byte]:
            continue
        ops, bounded = queue_ops(source, fn, present)
        if bounded and any(op.queue is not None for op in ops):
            out.extend(_replay(source, fn, ops))
    return out
