"""Data regions (`acc data`, `omp target data`) around offloaded loops sharing arrays.

Unnecessary host-device transfers cost 15-20% in the seed's measurements. A region
is proposed only where it is safe: its loops are consecutive statements of one
block, and nothing between them (host code, calls, declarations, exits) touches an
array that the region keeps on the device.
"""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis import FileAnalysis
from accls.analysis.aliasing import array_decl
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.frontend import Clause, Function, Loop, Span
from accls.suggest.context import placement
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Pragma, Target
from accls.suggest.sections import ArrayUse, loop_array_uses, union_section

__all__ = ["DataRegion", "propose_regions"]

_OMP_MAP = {"copyin": "to", "copyout": "from", "copy": "tofrom"}


@dataclass(frozen=True, slots=True, kw_only=True)
class DataRegion:
    """A proposed data region around consecutive offloaded loops."""

    loops: tuple[Loop, ...]
    pragma: Pragma
    present: tuple[tuple[str, str], ...]  # (array, section) the loops find present
    reasons: tuple[str, ...]
    around: Loop | None = None  # a sequential loop the region is hoisted around

    @property
    def start(self) -> Span:
        """Where the region opens: the first loop, or the loop it is hoisted around."""
        return self.around.span if self.around is not None else self.loops[0].span

    @property
    def end(self) -> Span:
        """Where the region closes."""
        return self.around.span if self.around is not None else self.loops[-1].span


def _base(name: str) -> str:
    return name.split("->")[0].split(".")[0]


def _clean_between(
    fn: Function, block: int, start: int, end: int, names: set[str]
) -> bool:
    """True if no host code in [start, end) may touch `names` (or end the region)."""
    bases = {_base(n) for n in names}
    if any(block == b and start <= s.start_byte < end for b, s in fn.block_decls):
        return False  # wrapping a declaration in braces would end its scope early
    if any(start <= e.span.start_byte < end for e in fn.exits):
        return False  # leaving the region early skips its copy-out
    if any(
        start <= c.span.start_byte < end and c.name not in PURE_FUNCTIONS
        for c in fn.call_sites
    ):
        return False  # a call may reach the arrays through pointers or globals
    return not any(
        start <= r.span.start_byte < end and _base(r.name) in bases for r in fn.refs
    )


def _uses(loop: Loop, analysis: FileAnalysis) -> list[ArrayUse]:
    source = analysis.source
    fn = source.function(loop.function)
    names = {r.name for r in loop.refs if r.subscripts or r.deref}
    if any((d := array_decl(n, fn, source.globals)) and d.device for n in names):
        return []  # device pointers need no data region
    return list(loop_array_uses(loop, analysis))


def _starts_line(data: bytes, offset: int) -> bool:
    return not data[data.rfind(b"\n", 0, offset) + 1 : offset].strip()


def _clean_inside(fn: Function, outer: Loop, run: list[Loop], names: set[str]) -> bool:
    """True if, inside `outer` but outside the run, no host code may touch `names`."""
    bases = {_base(n) for n in names}
    lo, hi = outer.span.start_byte, outer.span.end_byte

    def outside(offset: int) -> bool:
        inside = any(m.span.start_byte <= offset < m.span.end_byte for m in run)
        return lo <= offset < hi and not inside

    if any(outside(e.span.start_byte) for e in fn.exits):
        return False
    if any(
        outside(c.span.start_byte) and c.name not in PURE_FUNCTIONS
        for c in fn.call_sites
    ):
        return False
    return not any(
        outside(r.span.start_byte) and _base(r.name) in bases for r in fn.refs
    )


def _section_symbols(run: list[Loop], uses: dict[int, list[ArrayUse]]) -> set[str]:
    """Every name the sections of the run's arrays are written in."""
    found: set[str] = set()
    for member in run:
        for use in uses[member.id]:
            if use.section is None:
                continue  # a whole static array: its clause names no symbol
            for start, length in use.box or ():
                found |= start.names() | length.names()
    return found


def _varies_in(outer: Loop) -> set[str]:
    """Names whose value changes inside `outer`: loop variables, writes, locals."""
    names = {loop.var for loop in outer.walk() if loop.var}
    names |= {r.name for r in outer.refs if r.is_write and not r.subscripts}
    return names | {v.name for v in outer.locals}


def _hoist(
    run: list[Loop],
    names: set[str],
    symbols: set[str],
    analysis: FileAnalysis,
    opts: SuggestOptions,
) -> Loop | None:
    """The outermost sequential loop around the run that the region can enclose.

    The region's sections must mean the same outside the loop as inside: none of
    their symbols may change inside it.
    """
    source = analysis.source
    fn = source.function(run[0].function)
    if fn is None:
        return None
    by_body = {loop.body.start_byte: loop for loop in source.loops()}
    found: Loop | None = None
    block = run[0].block
    while block in by_body:
        outer = by_body[block]
        if (
            outer.block < 0
            or outer.pragmas
            or not _starts_line(source.data, outer.id)
            or placement(outer, opts.model).compute is not None
            or not _clean_inside(fn, outer, run, names)
            or symbols & _varies_in(outer)
        ):
            break
        found, block = outer, outer.block
    return found


def _region(
    loops: list[Loop],
    uses: dict[int, list[ArrayUse]],
    opts: SuggestOptions,
    around: Loop | None = None,
) -> DataRegion | None:
    by_name: dict[str, list[ArrayUse]] = {}
    for loop in loops:
        for use in uses[loop.id]:
            by_name.setdefault(use.name, []).append(use)
    if around is None and not any(len(group) > 1 for group in by_name.values()):
        return None  # no array is shared: nothing to save
    groups: dict[str, list[str]] = {}
    present: list[tuple[str, str]] = []
    reasons: list[str] = []
    for name, group in sorted(by_name.items()):
        section, known = union_section(group)
        if not known:
            return None
        item = section or name
        first = group[0]
        if not any(u.written for u in group):
            kind, why = "copyin", "only read in the region"
        elif (
            first.written
            and first.exact_cover
            and not first.read_first
            and (section is None or section == first.section)
        ):
            kind, why = "copyout", "fully written by the first loop before any read"
        else:
            kind, why = "copy", "read and written in the region"
        groups.setdefault(kind, []).append(item)
        present.append((name, item))
        reasons.append(f"{kind}({item}): `{name}` is {why}")
    clauses: list[Clause] = []
    for kind in ("copy", "copyin", "copyout"):
        if kind not in groups:
            continue
        if opts.model is Dialect.OPENACC:
            clauses.append(Clause(kind, ", ".join(groups[kind])))
        else:
            clauses.append(
                Clause("map", f"{_OMP_MAP[kind]}: {', '.join(groups[kind])}")
            )
    directive = "data" if opts.model is Dialect.OPENACC else "target data"
    lines = ", ".join(str(loop.line) for loop in loops)
    why = f"the offloaded loops at lines {lines} share arrays"
    if around is not None:
        why = (
            f"the arrays of the offloaded loops at lines {lines} stay on the device "
            f"across the sequential loop at line {around.line}"
        )
    return DataRegion(
        loops=tuple(loops),
        pragma=Pragma(opts.model, directive, tuple(clauses)),
        present=tuple(present),
        reasons=(why, *reasons),
        around=around,
    )


def _outside_constructs(loop: Loop, opts: SuggestOptions) -> bool:
    """True if no compute construct or data region already encloses the loop."""
    where = placement(loop, opts.model)
    return where.compute is None and not where.present


def propose_regions(
    analysis: FileAnalysis, offloaded: list[Loop], opts: SuggestOptions
) -> list[DataRegion]:
    """Data regions over runs of offloaded loops that share arrays."""
    if opts.model is Dialect.OPENMP and opts.target is not Target.GPU:
        return []
    source = analysis.source
    data = source.data
    candidates = [
        loop
        for loop in offloaded
        if loop.block >= 0
        and _starts_line(data, loop.id)
        and _outside_constructs(loop, opts)
    ]
    uses = {loop.id: _uses(loop, analysis) for loop in candidates}
    candidates = [loop for loop in candidates if uses[loop.id]]
    regions: list[DataRegion] = []
    run: list[Loop] = []

    def close() -> None:
        if not run:
            return
        names = {u.name for member in run for u in uses[member.id]}
        symbols = _section_symbols(run, uses)
        around = _hoist(run, names, symbols, analysis, opts)
        if around is not None or len(run) > 1:
            region = _region(run, uses, opts, around)
            if region is not None:
                regions.append(region)

    for loop in sorted(candidates, key=lambda item: item.id):
        fn = source.function(loop.function)
        if run and fn is not None and run[-1].block == loop.block:
            names = {u.name for member in [*run, loop] for u in uses[member.id]}
            names |= _section_symbols([*run, loop], uses)  # no resizing in between
            if _clean_between(fn, loop.block, run[-1].span.end_byte, loop.id, names):
                run.append(loop)
                continue
        close()
        run = [loop]
    close()
    return regions
