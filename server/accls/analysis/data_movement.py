"""Data-movement findings for OpenACC data clauses and OpenMP `map` clauses."""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis.analyze import FileAnalysis
from accls.analysis.data_clauses import managed_arrays, pragma_lines, transfer_kinds
from accls.analysis.data_kinds import (
    NEEDLESS_COPY,
    STALE_HOST_COPY,
    UNINITIALISED_DEVICE_READ,
    UNMAPPED_POINTER,
)
from accls.analysis.findings import Finding, Severity, finding
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.pragma_scope import list_names
from accls.frontend import Directive, Loop, Ref, Span, library_function

__all__ = ["data_findings"]


@dataclass(frozen=True, slots=True)
class _Holder:
    """A construct whose data clauses govern an offloaded loop."""

    directive: Directive
    span: Span  # what the clauses cover: a region's block or the loop


def _is_compute(directive: Directive) -> bool:
    words = set(directive.name.split())
    if directive.dialect == "acc":
        return bool(words & {"parallel", "kernels", "serial"})
    return "target" in words and not words & {"enter", "exit", "update"}


def _holders(loop: Loop, dialect: str) -> tuple[list[_Holder], bool]:
    """The data-clause holders around a loop, outermost first; is it offloaded."""
    chain: list[_Holder] = []
    offloaded = False
    for region in loop.regions:
        d = region.directive
        words = set(d.name.split())
        if d.dialect != dialect or words & {"enter", "exit", "update"}:
            continue
        offloaded = offloaded or _is_compute(d)
        if "data" in words or _is_compute(d):
            chain.append(_Holder(d, region.span))
    for d in loop.pragmas:
        if d.dialect == dialect and _is_compute(d):
            offloaded = True
            chain.append(_Holder(d, loop.span))
    return chain, offloaded


def _array_refs(loop: Loop) -> dict[str, list[Ref]]:
    groups: dict[str, list[Ref]] = {}
    for ref in loop.refs:
        if ref.subscripts or ref.deref:
            groups.setdefault(ref.name, []).append(ref)
    return groups


def _calls(analysis: FileAnalysis, use: _Use) -> bool:
    """True if the holder calls a function that may touch device data itself."""
    fn = analysis.source.function(use.loops[0].function)
    span = use.holder.span
    return fn is not None and any(
        span.start_byte <= c.span.start_byte < span.end_byte
        and c.name not in PURE_FUNCTIONS
        and not c.name.startswith(("acc_", "omp_"))
        # The C library never touches device data: only the acc_/omp_ runtime does.
        and (
            library_function(c.name) is None
            or analysis.source.function(c.name) is not None
        )
        for c in fn.call_sites
    )


def _runtime_data(analysis: FileAnalysis, use: _Use) -> bool:
    """True if the function moves data with runtime calls (acc_update_self, ...)."""
    fn = analysis.source.function(use.loops[0].function)
    words = ("update", "copy", "memcpy", "map", "attach", "create", "delete")
    return fn is not None and any(
        c.startswith(("acc_", "omp_target_")) and any(w in c for w in words)
        for c in fn.calls
    )


@dataclass(slots=True)
class _Use:
    """How the offloaded loops under one holder use one array."""

    holder: _Holder
    kind: str
    loops: list[Loop]


def _uses(
    analysis: FileAnalysis, dialect: str
) -> tuple[dict[tuple[int, str], _Use], list[tuple[Loop, str, Ref]]]:
    """Arrays grouped by the outermost clause naming them; and unnamed pointer uses."""
    uses: dict[tuple[int, str], _Use] = {}
    unnamed: list[tuple[Loop, str, Ref]] = []
    done: set[int] = set()
    for loop in analysis.source.loops():
        chain, offloaded = _holders(loop, dialect)
        if not offloaded or loop.id in done:
            continue
        done.update(inner.id for inner in loop.walk())
        for name, refs in _array_refs(loop).items():
            holder = next(
                (h for h in chain if name in transfer_kinds(h.directive)), None
            )
            if any(transfer_kinds(h.directive).get(name) == "zero" for h in chain):
                continue
            if holder is None:
                unnamed.append((loop, name, refs[0]))
                continue
            key = (holder.span.start_byte, name)
            kind = transfer_kinds(holder.directive)[name]
            uses.setdefault(key, _Use(holder, kind, [])).loops.append(loop)
    return uses, unnamed


def data_findings(analysis: FileAnalysis, dialect: str) -> list[Finding]:
    """Transfers that lose results, read garbage, fail, or move needless data."""
    source = analysis.source
    uses, unnamed = _uses(analysis, dialect)
    out: list[Finding] = []
    managed = managed_arrays(source, dialect)
    for (_, name), use in sorted(uses.items()):
        if name in managed or _runtime_data(analysis, use) or _calls(analysis, use):
            continue
        found = _judge(analysis, name, use)
        out.extend([found] if found is not None else [])
    out.extend(_unmapped(analysis, dialect, unnamed))
    return out


def _clause_line(use: _Use) -> int:
    span = use.holder.directive.span
    return span.line if span is not None else use.holder.span.line


_OMP_SPELLING = {"copyin": "to", "copyout": "from", "copy": "tofrom", "create": "alloc"}


def _spelling(kind: str, name: str, dialect: str) -> str:
    """How the user wrote the transfer: `copyin(a)` or `map(to: a)`."""
    if dialect == "omp":
        return f"map({_OMP_SPELLING.get(kind, kind)}: {name})"
    return f"{kind}({name})"


def _judge(analysis: FileAnalysis, name: str, use: _Use) -> Finding | None:
    writes = [
        r for loop in use.loops for r in _array_refs(loop).get(name, []) if r.is_write
    ]
    clause = _spelling(use.kind, name, use.holder.directive.dialect)
    where = {"var": name, "clause_line": _clause_line(use)}
    if use.kind in ("copyout", "create"):
        read = _first_read(name, use)
        if read is not None:
            return finding(
                UNINITIALISED_DEVICE_READ,
                read.span,
                read=read.span.line,
                clause=clause,
                **where,
            )
    if use.kind in ("copyin", "create") and writes:
        # `create`/`map(alloc:)` copies back no more than `copyin` does.
        after = _host_read_after(analysis, name, use)
        if after is None:
            return None
        text, severity = after
        return finding(
            STALE_HOST_COPY,
            writes[0].span,
            severity,
            write=writes[0].span.line,
            clause=clause,
            after=text,
            **where,
        )
    if use.kind == "copy" and not writes:
        if any(analysis.of(loop).pure_calls or loop.calls for loop in use.loops):
            return None
        return finding(
            NEEDLESS_COPY,
            use.holder.directive.span or use.holder.span,
            clause=clause,
            better=_spelling("copyin", name, use.holder.directive.dialect),
            **where,
        )
    return None


def _first_read(name: str, use: _Use) -> Ref | None:
    """The first device reference to `name` under the holder if it is a read."""
    ordered = sorted(use.loops, key=lambda loop: loop.id)
    refs = [r for loop in ordered for r in _array_refs(loop).get(name, [])]
    first = refs[0] if refs else None  # in evaluation order
    return first if first is not None and first.is_read else None


def _host_read_after(
    analysis: FileAnalysis, name: str, use: _Use
) -> tuple[str, Severity | None] | None:
    """Why the lost results matter: a later host read (error) or an escaping array."""
    source = analysis.source
    fn = source.function(use.loops[0].function)
    end = use.holder.span.end_byte
    if fn is not None:
        later = sorted(
            (r for r in fn.refs if r.name == name and r.span.start_byte >= end),
            key=lambda r: r.span.start_byte,
        )
        read_lines = {r.span.line for r in later if r.is_read}
        first = later[0] if later else None
        if (
            first is not None
            and not first.is_read
            and first.span.line not in read_lines
        ):
            return None  # the host sets it anew first (a scratch array)
        for ref in later:
            if ref.is_read:
                return f"the host reads it at line {ref.span.line}", None
        var = fn.lookup(name)
        if var is not None and var.scope == "param" and var.pointers > 0:
            return "the caller sees the old values", Severity.WARNING
    return None


def _unmapped(
    analysis: FileAnalysis, dialect: str, unnamed: list[tuple[Loop, str, Ref]]
) -> list[Finding]:
    """Local pointers used on the device that no data clause in the file names."""
    source = analysis.source
    everywhere = pragma_lines(source, 0, len(source.data))
    if any(
        "unified_shared_memory" in d.text or "defaultmap" in d.text for d in everywhere
    ):
        return []
    named: set[str] = set()
    for d in everywhere:
        if d.dialect == dialect:
            for clause in d.clauses:
                named |= list_names(clause.args or "")
    out: list[Finding] = []
    seen: set[str] = set()
    for loop, name, ref in unnamed:
        fn = source.function(loop.function)
        var = fn.lookup(name) if fn is not None else None
        if var is None or var.scope != "local" or var.pointers == 0 or var.dims:
            continue
        if var.device or name in named or name in seen:
            continue
        seen.add(name)
        why = (
            "OpenMP maps a pointer as a zero-length section, so the device faults; add "
            f"`map(tofrom: {name}[0:n])`"
            if dialect == "omp"
            else "the compiler must guess its extent (gcc faults at run time); add "
            f"`copy({name}[0:n])`"
        )
        out.append(
            finding(
                UNMAPPED_POINTER,
                ref.span,
                var=name,
                use=ref.span.line,
                line=loop.line,
                why=why,
            )
        )
    return out
