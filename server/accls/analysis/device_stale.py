"""ACC207: inside a structured data region one side reads what the other changed.

`#pragma acc data copy(a[0:n])` (or `copyin`, `create`; `omp target data
map(..)`) gives the device its own copy of `a` for the region. A kernel's write
reaches the host only through `update self` (`target update from`); a host write
reaches the device only through `update device` (`target update to`). The
region's direct references are read in source order: a host read after a kernel
write with no `update self` between, or a kernel read after a host write with no
`update device` between, reads the old copy. Calls are not followed (the check
says only what it can show); the copy back at the region's end is ACC206's.
"""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis.analyze import FileAnalysis
from accls.analysis.data_clauses import transfer_kinds
from accls.analysis.data_kinds import STALE_IN_REGION
from accls.analysis.device_coherence import (
    compute_spans,
    data_regions,
    function_directives,
    region_names,
    unentered,
    unseen_device_code,
)
from accls.analysis.finding_types import FindingKind
from accls.analysis.findings import Finding, finding
from accls.frontend import Directive, Function, Ref, Span

__all__ = ["stale_findings", "stale_reads"]

# Per dialect and directive: (clauses to the host, clause to the device).
_SYNC: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {
    "acc": {"update": (("self", "host"), "device")},
    "omp": {"target update": (("from",), "to")},
}


def _syncs(directive: Directive, sentinel: str) -> tuple[set[str], set[str]]:
    """Arrays the `update` brings to the host, and those it sends to the device."""
    spec = _SYNC[sentinel].get(directive.name)
    to_host: set[str] = set()
    to_device: set[str] = set()
    if spec is None:
        return to_host, to_device
    for clause in directive.clauses:
        names = {n.split("[")[0].strip() for n in (clause.args or "").split(",")}
        if clause.name in spec[0]:
            to_host |= names
        elif clause.name == spec[1]:
            to_device |= names
    return to_host, to_device


def _depth(ref: Ref) -> int:
    return len(ref.subscripts) + int(ref.deref)


def stale_reads(
    analysis: FileAnalysis,
    fn: Function,
    directive: Directive,
    span: Span,
    names: set[str],
    directives: list[tuple[int, Directive]],
    sentinel: str,
    *,
    kind: FindingKind = STALE_IN_REGION,
    unknown: Sequence[tuple[int, str]] = (),
) -> list[Finding]:
    """`kind` for each of `names` one side reads stale in `span`.

    There `directive` gives the device its own copy. `unknown`: (offset, name)
    where something the check does not follow (a call passed the array) may
    sync or change either copy; both are taken to agree again there.
    """
    start, end = span.start_byte, span.end_byte
    device = compute_spans(analysis, fn)
    steps: list[tuple[int, str, str, int]] = []  # (at, what, name, line)
    spans: dict[int, Span] = {}
    mine = [
        r
        for r in fn.refs
        if r.name in names
        and start < r.span.start_byte < end
        and (r.subscripts or r.deref)
    ]
    # The elements: `c[x]` of a table whose elements are `c[x][y]` reads a row
    # pointer (`free(c[x])`), which no kernel writes.
    deepest: dict[str, int] = {}
    for r in mine:
        deepest[r.name] = max(deepest.get(r.name, 0), _depth(r))
    for ref in mine:
        at = ref.span.start_byte
        if _depth(ref) < deepest[ref.name]:
            continue
        side = "device" if any(a <= at < b for a, b in device) else "host"
        spans[at] = ref.span
        if ref.is_read:
            steps.append((at, f"{side} read", ref.name, ref.span.line))
        if ref.is_write:
            steps.append((at, f"{side} write", ref.name, ref.span.line))
    for pos, d in directives:
        if start < pos < end and d.clause("if") is None:
            to_host, to_device = _syncs(d, sentinel)
            steps += [(pos, "to host", n, 0) for n in to_host & names]
            steps += [(pos, "to device", n, 0) for n in to_device & names]
    steps += [(at, "to device", n, 0) for at, n in unknown if start < at < end]
    newer: dict[tuple[str, str], int] = {}  # (name, side) -> line of its write
    out: list[Finding] = []
    said: set[str] = set()
    text = directive.text.strip()
    for at, what, name, line in sorted(steps, key=lambda s: (s[0], s[1])):
        if what in ("to host", "to device"):  # both copies now agree
            newer.pop((name, "device"), None)
            newer.pop((name, "host"), None)
        elif what.endswith("write"):
            newer.setdefault((name, what.split()[0]), line)
        else:
            reader = what.split()[0]
            writer = "host" if reader == "device" else "device"
            wrote = newer.get((name, writer))
            if wrote is None or name in said:
                continue
            said.add(name)
            to_reader = "self" if reader == "host" else "device"
            update = (
                f"update {to_reader}"
                if sentinel == "acc"
                else f"target update {'from' if reader == 'host' else 'to'}"
            )
            out.append(
                finding(
                    kind,
                    spans[at],
                    reader=reader,
                    writer=writer,
                    var=name,
                    read=line,
                    write=wrote,
                    region=text,
                    line=directive.span.line if directive.span else span.line,
                    update=update,
                )
            )
    return out


def stale_findings(analysis: FileAnalysis, sentinel: str) -> list[Finding]:
    """ACC207 for each array one side reads stale inside a structured data region."""
    source = analysis.source
    if b"data" not in source.data:
        return []
    out: list[Finding] = []
    for fn in source.functions:
        directives = function_directives(source, fn, sentinel)
        if not directives:
            continue
        unseen = unseen_device_code(analysis, fn, directives)
        regions = data_regions(analysis, fn, sentinel)
        for directive, span, names in region_names(regions, unentered(directives)):
            if directive.clause("if") is not None:
                continue
            if any(span.start_byte <= pos < span.end_byte for pos, _ in unseen):
                continue
            kinds = transfer_kinds(directive)
            held = {
                n
                for n in names
                if kinds.get(n) in ("copy", "copyin", "copyout", "create")
            }
            out += stale_reads(
                analysis, fn, directive, span, held, directives, sentinel
            )
    return out
