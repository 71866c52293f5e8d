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

from accls.analysis.acc_queue_ops import acc_pragmas
from accls.analysis.analyze import FileAnalysis
from accls.analysis.device_kernels import device_kernel
from accls.analysis.findings import LOST_HOST_WRITES, Finding, finding
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.summaries import summarize
from accls.frontend import Call, Directive, Function, SourceFile, Span

__all__ = ["coherence_findings"]

_ITEM = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*")
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_COMPUTE = frozenset({"parallel", "kernels", "serial"})
_TO_DEVICE = {
    "enter data": ("copyin", "create", "pcopyin", "pcreate"),
    "update": ("device",),
}
_TO_HOST = {"exit data": ("copyout", "pcopyout"), "update": ("self", "host")}


@dataclass(frozen=True, slots=True)
class _Event:
    """One step of an array's life in the function, in source order."""

    at: int
    kind: str  # "device" (host to device), "host" (device to host), "write"
    name: str
    span: Span
    how: str  # the directive's text, or what writes on the host


def _names(directive: Directive, clauses: tuple[str, ...]) -> set[str]:
    out: set[str] = set()
    for clause in directive.clauses:
        if clause.name in clauses and clause.args:
            out |= {m.group(1) for m in _ITEM.finditer(clause.args)}
    return out


def _compute_spans(source: SourceFile, fn: Function) -> list[tuple[int, int]]:
    """Byte ranges of the function's loops that run on the device."""
    spans: list[tuple[int, int]] = []
    for loop in source.loops():
        if loop.function != fn.name:
            continue
        held = [d for d in loop.pragmas if set(d.name.split()) & _COMPUTE]
        held += [
            r.directive
            for r in loop.regions
            if set(r.directive.name.split()) & _COMPUTE
        ]
        if held:
            spans.append((loop.span.start_byte, loop.span.end_byte))
    return spans


def _writer(call: Call, arg: int, analysis: FileAnalysis) -> str | None:
    """What the call does on the host to its argument `arg`, or None if nothing."""
    source, program = analysis.source, analysis.program
    local = source.function(call.name)
    other = program.only(call.name) if program is not None and local is None else None
    if local is not None and device_kernel(local, source) is not None:
        return None
    if other is not None and other.kernel is not None:
        return None
    summary = summarize(call.name, source, PURE_FUNCTIONS, {}, program)
    if summary is None or arg not in summary.writes:
        return None  # unknown effects: the check says only what it can show
    where = f" ({other.place})" if other is not None else ""
    return f"`{call.name}()`{where} runs on the host and writes through it"


def _events(analysis: FileAnalysis, fn: Function, held: set[str]) -> list[_Event]:
    source = analysis.source
    out: list[_Event] = []
    for pos, _, directive in acc_pragmas(source, fn):
        span = directive.span
        assert span is not None
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
            writes = _writer(call, k, analysis)
            if writes is not None:
                out.append(_Event(at, "write", arg, call.span, writes))
    return sorted(out, key=lambda e: e.at)


def coherence_findings(analysis: FileAnalysis) -> tuple[Finding, ...]:
    """ACC206 for every copy back that replaces host writes made since the last sync."""
    source = analysis.source
    if b"enter" not in source.data:
        return ()
    found: list[Finding] = []
    for fn in source.functions:
        pragmas = acc_pragmas(source, fn)
        held = set()
        for _, _, directive in pragmas:
            if directive.name == "enter data":
                held |= _names(directive, _TO_DEVICE["enter data"])
        if not held:
            continue
        dirty: dict[str, _Event] = {}
        entered: set[str] = set()
        for event in _events(analysis, fn, held):
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
                    )
                )
    return tuple(found)
