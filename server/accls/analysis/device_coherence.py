"""ACC206: a device-to-host copy that overwrites what the host wrote meanwhile.

Between `enter data` and `exit data copyout` (or an `update self`) the device
holds its own copy of an array. The host may write the array in between only
if an `update device` sends the new values over before the copy back; else the
copy back replaces them with the device's older values. This is how a data
lifetime goes stale: `scale(n, u)` was a kernel (its loop offloaded) when the
lifetime was written, and now runs on the host (its pragmas removed, maybe in
another file). The function is read in source order, per array the lifetime
holds: host writes (the function's own references outside compute
constructs, and calls that write the array through a pointer parameter and
are not kernel functions), `update device`, and the copies back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.analyze import FileAnalysis
from accls.analysis.device_kernels import device_kernel
from accls.analysis.findings import LOST_HOST_WRITES, Finding, finding
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.summaries import Summary, summarize
from accls.frontend import Call, Directive, Function, SourceFile, Span, parse_directive

__all__ = ["coherence_findings"]

_ITEM = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*")
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_PRAGMA = re.compile(rb"#[ \t]*pragma[ \t]+(acc|omp)\b[^\n]*(?:\\\n[^\n]*)*")
_COMPUTE = {"acc": frozenset({"parallel", "kernels", "serial"})}
# Per directive, the clauses that move data to the device and back to the host.
_TO_DEVICE = {
    "enter data": ("copyin", "create", "pcopyin", "pcreate"),
    "update": ("device",),
    "target enter data": ("map:to", "map:alloc"),
    "target update": ("to",),
}
_TO_HOST = {
    "exit data": ("copyout", "pcopyout"),
    "update": ("self", "host"),
    "target exit data": ("map:from", "map:tofrom"),
    "target update": ("from",),
}
_ENTER = ("enter data", "target enter data")


@dataclass(frozen=True, slots=True)
class _Event:
    """One step of an array's life in the function, in source order."""

    at: int
    kind: str  # "device" (host to device), "host" (device to host), "write"
    name: str
    span: Span
    how: str  # the directive's text, or what writes on the host


def _names(directive: Directive, clauses: tuple[str, ...]) -> set[str]:
    """Arrays the directive's `clauses` name (`map:to` is `map(to: ...)`)."""
    out: set[str] = set()
    for clause in directive.clauses:
        args = clause.args or ""
        name = clause.name
        if name == "map" and ":" in args.split("[", 1)[0]:
            kind, args = args.split(":", 1)
            name = "map:" + kind.replace("always", "").strip(" ,")
        if name in clauses and args:
            out |= {m.group(1) for m in _ITEM.finditer(args)}
    return out


def _directives(
    source: SourceFile, fn: Function, sentinel: str
) -> list[tuple[int, Directive]]:
    """The function's well-formed pragmas of `sentinel`, with their offsets."""
    data = source.data
    out: list[tuple[int, Directive]] = []
    for match in _PRAGMA.finditer(data, fn.span.start_byte, fn.span.end_byte):
        if match.group(1).decode() != sentinel:
            continue
        row = data.count(b"\n", 0, match.start())
        col = match.start() - (data.rfind(b"\n", 0, match.start()) + 1)
        span = Span(match.start(), match.end(), (row, col), (row, col))
        directive = parse_directive(match.group(0).decode("utf-8", "replace"), span)
        if directive is not None and not directive.malformed:
            out.append((match.start(), directive))
    return out


def _runs_on_device(directive: Directive) -> bool:
    words = set(directive.name.split())
    if directive.dialect == "acc":
        return bool(words & _COMPUTE["acc"])
    return "target" in words and not words & {"enter", "exit", "update", "data"}


def _compute_spans(source: SourceFile, fn: Function) -> list[tuple[int, int]]:
    """Byte ranges of the function's loops that run on the device."""
    spans: list[tuple[int, int]] = []
    for loop in source.loops():
        if loop.function != fn.name:
            continue
        held = [*loop.pragmas, *(r.directive for r in loop.regions)]
        if any(_runs_on_device(d) for d in held):
            spans.append((loop.span.start_byte, loop.span.end_byte))
    return spans


def _writer(
    call: Call, arg: int, analysis: FileAnalysis, memo: dict[str, Summary | None]
) -> str | None:
    """What the call does on the host to its argument `arg`, or None if nothing."""
    source, program = analysis.source, analysis.program
    local = source.function(call.name)
    other = program.only(call.name) if program is not None and local is None else None
    if local is not None and device_kernel(local, source) is not None:
        return None
    if other is not None and other.kernel is not None:
        return None
    summary = summarize(call.name, source, PURE_FUNCTIONS, memo, program)
    if summary is None or arg not in summary.writes:
        return None  # unknown effects: the check says only what it can show
    where = f" ({other.place})" if other is not None else ""
    return f"`{call.name}()`{where} runs on the host and writes through it"


def _events(
    analysis: FileAnalysis,
    fn: Function,
    held: set[str],
    directives: list[tuple[int, Directive]],
    memo: dict[str, Summary | None],
) -> list[_Event]:
    source = analysis.source
    out: list[_Event] = []
    for pos, directive in directives:
        span = directive.span
        assert span is not None
        if directive.clause("if") is not None:
            continue  # it may not run: the check says only what it can show
        for kinds, kind in ((_TO_DEVICE, "device"), (_TO_HOST, "host")):
            clauses = kinds.get(directive.name)
            if clauses:
                for name in _names(directive, clauses) & held:
                    out.append(_Event(pos, kind, name, span, directive.text.strip()))
    device = _compute_spans(source, fn)
    for ref in fn.refs:
        at = ref.span.start_byte
        if (
            ref.name not in held
            or not ref.is_write
            or not (ref.subscripts or ref.deref)
        ):
            continue
        if not any(start <= at < end for start, end in device):
            how = f"`{ref.render()}` is assigned on the host"
            out.append(_Event(at, "write", ref.name, ref.span, how))
    for call in fn.call_sites:
        at = call.span.start_byte
        if any(start <= at < end for start, end in device):
            continue
        for k, arg in enumerate(call.args):
            if arg not in held or not _IDENT.match(arg):
                continue
            writes = _writer(call, k, analysis, memo)
            if writes is not None:
                out.append(_Event(at, "write", arg, call.span, writes))
    return sorted(out, key=lambda e: e.at)


def coherence_findings(analysis: FileAnalysis, sentinel: str) -> tuple[Finding, ...]:
    """ACC206 for every copy back that replaces host writes made since the last sync."""
    source = analysis.source
    if b"enter" not in source.data:
        return ()
    found: list[Finding] = []
    memo: dict[str, Summary | None] = {}  # the file's summaries, made once
    for fn in source.functions:
        directives = _directives(source, fn, sentinel)
        held: set[str] = set()
        for _, directive in directives:
            if directive.name in _ENTER:
                held |= _names(directive, _TO_DEVICE[directive.name])
        if not held:
            continue
        dirty: dict[str, _Event] = {}
        entered: set[str] = set()
        for event in _events(analysis, fn, held, directives, memo):
            if event.kind == "device":
                entered.add(event.name)
                dirty.pop(event.name, None)
            elif event.kind == "write" and event.name in entered:
                dirty.setdefault(event.name, event)
            elif event.kind == "host" and event.name in dirty:
                write = dirty.pop(event.name)
                found.append(
                    finding(
                        LOST_HOST_WRITES,
                        event.span,
                        var=event.name,
                        copy=event.how,
                        line=event.span.line,
                        write=write.span.line,
                        how=write.how,
                        update="update device"
                        if sentinel == "acc"
                        else "target update to",
                    )
                )
    return tuple(found)
