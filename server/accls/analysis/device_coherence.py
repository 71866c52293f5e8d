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

Structured regions (`acc data copy(..)`, `omp target data map(tofrom:)`) the same
way, each on its own: the device gets its copy where the region starts and the
closing `}` copies it back over host writes made inside with no update between.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.analyze import FileAnalysis
from accls.analysis.data_clauses import Section, clause_sections, transfer_kinds
from accls.analysis.data_kinds import LOST_HOST_WRITES
from accls.analysis.device_constructs import runs_on_device
from accls.analysis.device_kernels import device_kernel
from accls.analysis.findings import Finding, Severity, finding
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.summaries import Summary, summarize
from accls.frontend import (
    Call,
    Directive,
    Function,
    Loop,
    Ref,
    SourceFile,
    Span,
    parse_directive,
)
from accls.frontend.exprs import expression_poly

__all__ = [
    "coherence_findings",
    "compute_spans",
    "data_regions",
    "function_directives",
    "region_names",
    "unentered",
    "unseen_device_code",
]

_ITEM = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*")
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_PRAGMA = re.compile(rb"#[ \t]*pragma[ \t]+(acc|omp)\b(?:[^\n]*\\\r?\n)*[^\n]*")
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
_DATA = ("data", "target data")


@dataclass(frozen=True, slots=True)
class _Event:
    """One step of an array's life in the function, in source order."""

    at: int
    kind: str  # "device" (host to device), "host" (device to host), "write"
    name: str
    span: Span
    how: str  # the directive's text, or what writes on the host
    certain: bool = False  # a write that surely runs, into what the region copies back


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


def function_directives(
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


def _loops_of(analysis: FileAnalysis, fn: Function) -> list[Loop]:
    """The function's loops; the file's loops are grouped once, not per function."""
    found = analysis.memo.get("loops by function")
    if not isinstance(found, dict):
        groups: dict[str, list[Loop]] = {}
        for loop in analysis.source.loops():
            groups.setdefault(loop.function or "", []).append(loop)
        found = analysis.memo["loops by function"] = groups
    return list(found.get(fn.name, []))


def compute_spans(analysis: FileAnalysis, fn: Function) -> list[tuple[int, int]]:
    """Byte ranges of the function's loops that run on the device."""
    spans: list[tuple[int, int]] = []
    for loop in _loops_of(analysis, fn):
        held = [*loop.pragmas, *(r.directive for r in loop.regions)]
        if any(runs_on_device(d) for d in held):
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
    device = compute_spans(analysis, fn)
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


def data_regions(
    analysis: FileAnalysis, fn: Function, sentinel: str
) -> list[tuple[Directive, Span]]:
    """The function's structured data regions of `sentinel`, in source order."""
    found: dict[int, tuple[Directive, Span]] = {}
    for loop in _loops_of(analysis, fn):
        for region in loop.regions:
            d = region.directive
            if d.dialect == sentinel and d.name in _DATA:
                found.setdefault(region.span.start_byte, (d, region.span))
    return [found[k] for k in sorted(found)]


def unseen_device_code(
    analysis: FileAnalysis, fn: Function, directives: list[tuple[int, Directive]]
) -> list[tuple[int, int]]:
    """Pragma offsets of device constructs over a block rather than a loop.

    (`serial { .. }`, `target { .. }`): the host-write scan cannot tell their
    statements from the host's.
    """
    known: set[int] = set()
    for loop in _loops_of(analysis, fn):
        held = [*loop.pragmas, *(r.directive for r in loop.regions)]
        known |= {d.span.start_byte for d in held if d.span is not None}
    return [
        (pos, pos)
        for pos, d in directives
        if runs_on_device(d) and d.span is not None and d.span.start_byte not in known
    ]


def region_names(
    regions: list[tuple[Directive, Span]], unstructured: set[str]
) -> list[tuple[Directive, Span, set[str]]]:
    """Per region, the arrays it holds itself.

    Not those of an `enter data` (`unstructured`) nor of an enclosing region:
    there they are only present.
    """
    out: list[tuple[Directive, Span, set[str]]] = []
    outer: list[tuple[Span, set[str]]] = []
    for directive, span in regions:
        kinds = transfer_kinds(directive)
        names = set(kinds) - unstructured
        for held_span, held in outer:
            if held_span.start_byte <= span.start_byte < held_span.end_byte:
                names -= held
        outer.append((span, set(kinds)))
        out.append((directive, span, names))
    return out


def unentered(directives: list[tuple[int, Directive]]) -> set[str]:
    """Arrays an `enter data` of the function names."""
    held: set[str] = set()
    for _, directive in directives:
        if directive.name in _ENTER:
            held |= _names(directive, _TO_DEVICE[directive.name])
    return held


def _region_events(
    analysis: FileAnalysis,
    fn: Function,
    directives: list[tuple[int, Directive]],
    memo: dict[str, Summary | None],
    unstructured: set[str],
) -> list[list[_Event]]:
    """Per structured data region, the events of the arrays it copies back.

    The region gives the device its copy where it starts and copies it back
    where it ends (`copy`, `copyout`, `map(tofrom:/from:)`); `update`s inside
    sync it. An array an enclosing region or an `enter data` already holds is
    only present here: its copy back happens elsewhere.
    """
    unseen = unseen_device_code(analysis, fn, directives)
    out: list[list[_Event]] = []
    regions = data_regions(analysis, fn, directives[0][1].dialect)
    for directive, span, names in region_names(regions, unstructured):
        kinds = transfer_kinds(directive)
        back = {n for n in names if kinds[n] in ("copy", "copyout")}
        start, end = span.start_byte, span.end_byte
        if not back or directive.clause("if") is not None:
            continue
        if any(start <= pos < end for pos, _ in unseen):
            continue
        inside = [(p, d) for p, d in directives if start < p < end]
        events = [
            e
            for e in _events(analysis, fn, back, inside, memo)
            if start < e.at < end and (e.kind != "write" or e.span.start_byte > start)
        ]
        sections = {sec.name: sec for sec in clause_sections(directive)}
        refs = {r.span.start_byte: r for r in fn.refs if r.is_write}
        marked = [
            _mark(e, refs.get(e.at), sections.get(e.name)) if e.kind == "write" else e
            for e in events
        ]
        events = [e for e in marked if e is not None]
        text = directive.text.strip()
        close = Span(end, end, span.end, span.end)
        out.append(
            [_Event(start, "device", n, span, text) for n in sorted(back)]
            + events
            + [
                _Event(end, "host", n, close, f"}}` closing `{text}")
                for n in sorted(back)
            ]
        )
    return out


def _mark(event: _Event, ref: Ref | None, section: Section | None) -> _Event | None:
    """The write made certain, kept as it is, or None if the copy back misses it.

    Certain: it runs on every path (no branch, no host loop that may run no
    trip) and the section surely holds its element. None: a constant subscript
    outside a constant section (the copy back leaves it alone).
    """
    if ref is None or section is None or ref.member or ref.deref:
        return event
    inside = True
    if section.dims:
        if len(ref.subscripts) != len(section.dims):
            return event
        for sub, (lo_text, length_text) in zip(
            ref.subscripts, section.dims, strict=True
        ):
            lo, length = expression_poly(lo_text), expression_poly(length_text)
            at = sub.poly
            if lo is None or length is None or at is None:
                return event
            if not (lo.is_constant and length.is_constant and at.is_constant):
                inside = False
            elif not lo.constant <= at.constant < lo.constant + length.constant:
                return None
    if not inside or ref.guarded or ref.loops or any(c < 0 for c in ref.context):
        return event
    return _Event(event.at, event.kind, event.name, event.span, event.how, True)


def _replay(events: list[_Event], sentinel: str, found: list[Finding]) -> None:
    """ACC206 for each copy back over host writes since the device got the array."""
    dirty: dict[str, _Event] = {}
    entered: set[str] = set()
    for event in events:
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
                    Severity.ERROR if write.certain else None,
                    var=event.name,
                    copy=event.how,
                    line=event.span.line,
                    write=write.span.line,
                    how=write.how,
                    update="update device" if sentinel == "acc" else "target update to",
                )
            )


def coherence_findings(analysis: FileAnalysis, sentinel: str) -> tuple[Finding, ...]:
    """ACC206 for every copy back that replaces host writes made since the last sync."""
    source = analysis.source
    if b"enter" not in source.data and b"data" not in source.data:
        return ()
    found: list[Finding] = []
    memo: dict[str, Summary | None] = {}  # the file's summaries, made once
    for fn in source.functions:
        directives = function_directives(source, fn, sentinel)
        held = unentered(directives)
        if directives:
            for events in _region_events(analysis, fn, directives, memo, held):
                _replay(events, sentinel, found)
        if held:
            _replay(_events(analysis, fn, held, directives, memo), sentinel, found)
    return tuple(found)
