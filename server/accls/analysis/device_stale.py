"""ACC207: inside a structured data region one side reads what the other changed.

`#pragma acc data copy(a[0:n])` (or `copyin`, `create`; `omp target data
map(..)`) gives the device its own copy of `a` for the region. A kernel's write
reaches the host only through `update self` (`target update from`); a host write
reaches the device only through `update device` (`target update to`). The
region's direct references are read in source order: a host read after a kernel
write with no `update self` between, or a kernel read after a host write with no
`update device` between, reads the old copy. An update of one section moves
only its elements (`sync_sections.py`). Calls are not followed (the check
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
from accls.analysis.sync_sections import Box, item_box, provably_outside
from accls.frontend import Directive, Function, Ref, Span
from accls.frontend.pragmas import clause_items

__all__ = ["stale_findings", "stale_reads"]

# Per dialect and directive: (clauses to the host, clause to the device).
_SYNC: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {
    "acc": {"update": (("self", "host"), "device")},
    "omp": {"target update": (("from",), "to")},
}


def _syncs(
    directive: Directive, sentinel: str, at: int
) -> list[tuple[str, str, Box | None]]:
    """(way, array, section) the `update` at `at` moves; None: all of the array."""
    spec = _SYNC[sentinel].get(directive.name)
    out: list[tuple[str, str, Box | None]] = []
    if spec is None:
        return out
    for clause in directive.clauses:
        if clause.name in spec[0]:
            way = "to host"
        elif clause.name == spec[1]:
            way = "to device"
        else:
            continue
        for item in clause_items(clause.args or ""):
            out.append((way, item.split("[")[0].strip(), item_box(item, at)))
    return out


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
    # (at, what, name, line, section moved: an index of `boxes`, -1 for all)
    steps: list[tuple[int, str, str, int, int]] = []
    boxes: list[Box] = []
    spans: dict[int, Span] = {}
    refs: dict[int, Ref] = {}
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
        refs[at] = ref
        if ref.is_read:
            steps.append((at, f"{side} read", ref.name, ref.span.line, -1))
        if ref.is_write:
            steps.append((at, f"{side} write", ref.name, ref.span.line, -1))
    for pos, d in directives:
        if start < pos < end and d.clause("if") is None:
            for way, n, box in _syncs(d, sentinel, pos):
                if n in names:
                    steps.append((pos, way, n, 0, len(boxes) if box else -1))
                    boxes += [box] if box else []
    steps += [(at, "to device", n, 0, -1) for at, n in unknown if start < at < end]
    newer: dict[tuple[str, str], int] = {}  # (name, side) -> line of its write
    # (name, side) -> the sections updates moved of what that side wrote last.
    partial: dict[tuple[str, str], list[Box]] = {}
    out: list[Finding] = []
    said: set[str] = set()
    text = directive.text.strip()
    for at, what, name, line, moved in sorted(steps, key=lambda s: (s[0], s[1])):
        if what in ("to host", "to device") and moved >= 0:
            side = "device" if what == "to host" else "host"
            partial.setdefault((name, side), []).append(boxes[moved])
        elif what in ("to host", "to device"):  # both copies now agree
            for side in ("device", "host"):
                newer.pop((name, side), None)
                partial.pop((name, side), None)
        elif what.endswith("write"):
            newer.setdefault((name, what.split()[0]), line)
            partial.pop((name, what.split()[0]), None)
        else:
            reader = what.split()[0]
            writer = "host" if reader == "device" else "device"
            wrote = newer.get((name, writer))
            if wrote is None or name in said:
                continue
            sections = partial.get((name, writer), [])
            if sections and not all(
                provably_outside(refs[at], box, fn) for box in sections
            ):
                continue  # an update moved the element, or may have
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
