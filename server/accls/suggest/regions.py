"""Data regions (`acc data`, `omp target data`) around offloaded loops sharing arrays.

Unnecessary host-device transfers cost 15-20% in the seed's measurements. A region
is proposed only where it is safe: its loops are consecutive statements of one
block, and nothing between them (host code, calls, declarations, exits) touches an
array that the region keeps on the device.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from accls.analysis import FileAnalysis
from accls.analysis.access_paths import target_of
from accls.analysis.alias_pairs import pair_may_alias
from accls.analysis.aliasing import array_decl
from accls.analysis.array_sections import (
    ArrayUse,
    loop_array_uses,
    plain_names,
    union_section,
)
from accls.analysis.mapped_storage import same_sections, shared_storage
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.frontend import Clause, Function, Loop, Ref, SourceFile, Span
from accls.suggest.callee_arrays import callee_array_uses
from accls.suggest.context import placement
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Pragma, Target

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


class _HostCode:
    """A function's host code by offset, to ask what lies between two loops.

    Built once per function, so scanning a run of n loops costs O(n log n),
    not O(n) per gap over every reference of the function.
    """

    def __init__(self, fn: Function, source: SourceFile) -> None:
        def ordered(items: list[tuple[int, str]]) -> tuple[list[int], list[str]]:
            items.sort(key=lambda item: item[0])
            return [at for at, _ in items], [what for _, what in items]

        self._decls = fn.block_decls
        self._exits = sorted(e.span.start_byte for e in fn.exits)
        self._calls = sorted(
            c.span.start_byte for c in fn.call_sites if c.name not in PURE_FUNCTIONS
        )
        self._refs, self._bases = ordered(
            [(r.span.start_byte, _base(r.name)) for r in fn.refs]
        )
        self._fn, self._source = fn, source
        self._memory = sorted(
            (r for r in fn.refs if r.subscripts or r.deref),
            key=lambda r: r.span.start_byte,
        )
        self._memory_at = [r.span.start_byte for r in self._memory]
        decls: dict[int, list[int]] = {}
        for block, span in self._decls:
            decls.setdefault(block, []).append(span.start_byte)
        self._decl_at = {block: sorted(at) for block, at in decls.items()}

    def clean(self, block: int, start: int, end: int, names: set[str]) -> bool:
        """True if no host code in [start, end) may touch `names` or end a region."""
        if _any_in(self._decl_at.get(block, []), start, end):
            return False  # wrapping a declaration in braces would end its scope early
        return self.quiet(start, end, {_base(n) for n in names})

    def quiet(self, start: int, end: int, bases: set[str]) -> bool:
        """True if no exit, call or reference to `bases` lies in [start, end)."""
        if _any_in(self._exits, start, end):
            return False  # leaving the region early skips its copy-out
        if _any_in(self._calls, start, end):
            return False  # a call may reach the arrays through pointers or globals
        low = bisect_left(self._refs, start)
        high = bisect_left(self._refs, end)
        if any(self._bases[at] in bases for at in range(low, high)):
            return False
        low = bisect_left(self._memory_at, start)
        high = bisect_left(self._memory_at, end)
        others = [r for r in self._memory[low:high] if _base(r.name) not in bases]
        return not others or not self._reaches(others, bases)

    def _reaches(self, host: list[Ref], bases: set[str]) -> bool:
        """True if a host access under another name may reach one of `bases`.

        `double *p = a;` then `p[5] = 1` between two kernels writes `a`.
        """
        fn, source = self._fn, self._source
        kept = [
            target_of(r, fn, source.globals, source.types)
            for r in self._memory
            if _base(r.name) in bases
        ]
        return any(
            pair_may_alias(
                target_of(r, fn, source.globals, source.types), k, fn, source.types
            )
            for r in host
            for k in kept
        )


def _any_in(offsets: list[int], start: int, end: int) -> bool:
    at = bisect_left(offsets, start)
    return at < len(offsets) and offsets[at] < end


def _uses(loop: Loop, analysis: FileAnalysis) -> list[ArrayUse]:
    source = analysis.source
    fn = source.function(loop.function)
    names = {r.name for r in loop.refs if r.subscripts or r.deref}
    if any((d := array_decl(n, fn, source.globals)) and d.device for n in names):
        return []  # device pointers need no data region
    return [*loop_array_uses(loop, analysis), *callee_array_uses(loop, analysis)]


def _starts_line(data: bytes, offset: int) -> bool:
    return not data[data.rfind(b"\n", 0, offset) + 1 : offset].strip()


def _clean_inside(
    host: _HostCode, outer: Loop, run: list[Loop], names: set[str]
) -> bool:
    """True if, inside `outer` but outside the run, no host code may touch `names`."""
    bases = {_base(n) for n in names}
    start = outer.span.start_byte
    for member in run:  # consecutive statements, in order
        if not host.quiet(start, member.span.start_byte, bases):
            return False
        start = member.span.end_byte
    return host.quiet(start, outer.span.end_byte, bases)


def _use_symbols(uses: list[ArrayUse]) -> set[str]:
    """Every name the sections of one loop's arrays are written in."""
    found: set[str] = set()
    for use in uses:
        if use.section is None:
            continue  # a whole static array: its clause names no symbol
        for start, length in use.box or ():
            found |= plain_names(start.names() | length.names())
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
    context: tuple[FileAnalysis, dict[int, Loop], _HostCode],
    opts: SuggestOptions,
) -> Loop | None:
    """The outermost sequential loop around the run that the region can enclose.

    The region's sections must mean the same outside the loop as inside: none of
    their symbols may change inside it.
    """
    analysis, by_body, host = context
    source = analysis.source
    found: Loop | None = None
    block = run[0].block
    while block in by_body:
        outer = by_body[block]
        if (
            outer.block < 0
            or outer.pragmas
            or not _starts_line(source.data, outer.id)
            or placement(outer, opts.dialect).compute is not None
            or not _clean_inside(host, outer, run, names)
            or symbols & _varies_in(outer)
        ):
            break
        found, block = outer, outer.block
    return found


def _runs(loop: Loop) -> bool:
    """True if the loop surely runs at least once (constant bounds)."""
    bounds = _range_of(loop)
    return bounds is not None and bounds[1] >= bounds[0]


def _range_of(loop: Loop) -> tuple[int, int] | None:
    """Inclusive constant (low, high) of the loop variable, or None."""
    low, top, step = loop.lower, loop.upper, loop.step
    if low is None or top is None or not low.is_constant or not top.is_constant:
        return None
    if step is None:
        return None
    if step > 0:
        strict = loop.cond_op in ("<", "!=")
        return low.constant, top.constant - (1 if strict else 0)
    if step < 0:
        strict = loop.cond_op in (">", "!=")
        return top.constant + (1 if strict else 0), low.constant
    return None


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
    # The region's clauses run where its first loop does (or `around`, the
    # nest that holds it): the facts of that nest hold there.
    guards = next((u.guards for u in uses[loops[0].id]), ()) if loops else ()
    for name, group in sorted(by_name.items()):
        section, known = union_section(group, guards)
        if not known:
            return None
        item = section or name
        first = group[0]
        # The first use's section, spelled under the region's guards.
        first_section = union_section([first], guards)[0]
        if not any(u.written for u in group):
            kind, why = "copyin", "only read in the region"
        elif (
            first.written
            and first.exact_cover
            and (around is None or _runs(around))
            and not first.read_first
            and (section is None or section == first_section)
        ):
            kind, why = "copyout", "fully written by the first loop before any read"
        elif (
            around is not None
            and first.exact_cover
            and not first.read_first
            and section == first_section
        ):
            kind = "copy"
            why = (
                f"fully written inside the loop at line {around.line}, which may "
                "run zero times: copyout would copy device garbage back"
            )
        else:
            kind, why = "copy", "read and written in the region"
        groups.setdefault(kind, []).append(item)
        present.append((name, item))
        reasons.append(f"{kind}({item}): `{name}` is {why}")
    clauses: list[Clause] = []
    for kind in ("copy", "copyin", "copyout"):
        if kind not in groups:
            continue
        if opts.dialect is Dialect.OPENACC:
            clauses.append(Clause(kind, ", ".join(groups[kind])))
        else:
            clauses.append(
                Clause("map", f"{_OMP_MAP[kind]}: {', '.join(groups[kind])}")
            )
    directive = "data" if opts.dialect is Dialect.OPENACC else "target data"
    lines = ", ".join(str(loop.line) for loop in loops)
    why = f"the offloaded loops at lines {lines} share arrays"
    if around is not None:
        why = (
            f"the arrays of the offloaded loops at lines {lines} stay on the device "
            f"across the sequential loop at line {around.line}"
        )
    return DataRegion(
        loops=tuple(loops),
        pragma=Pragma(opts.dialect, directive, tuple(clauses)),
        present=tuple(present),
        reasons=(why, *reasons),
        around=around,
    )


def _outside_constructs(loop: Loop, opts: SuggestOptions) -> bool:
    """True if no compute construct or data region already encloses the loop."""
    where = placement(loop, opts.dialect)
    return where.compute is None and not where.present


def propose_regions(
    analysis: FileAnalysis, offloaded: list[Loop], opts: SuggestOptions
) -> list[DataRegion]:
    """Data regions over runs of offloaded loops that share arrays."""
    if opts.dialect is Dialect.OPENMP and opts.target is not Target.GPU:
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
    symbols = {loop.id: _use_symbols(uses[loop.id]) for loop in candidates}
    names = {loop.id: {u.name for u in uses[loop.id]} for loop in candidates}
    by_body = {loop.body.start_byte: loop for loop in source.loops()}
    hosts: dict[str, _HostCode] = {}

    def host_of(fn: Function) -> _HostCode:
        found = hosts.get(fn.name)
        if found is None:
            found = hosts[fn.name] = _HostCode(fn, source)
        return found

    regions: list[DataRegion] = []
    run: list[Loop] = []
    # The names and section symbols of the run so far, grown loop by loop.
    run_names: set[str] = set()
    run_symbols: set[str] = set()

    def close() -> None:
        if not run:
            return
        fn = source.function(run[0].function)
        around = None
        if fn is not None:
            context = (analysis, by_body, host_of(fn))
            around = _hoist(run, run_names, run_symbols, context, opts)
        if around is not None or len(run) > 1:
            region = _region(run, uses, opts, around)
            if region is not None:
                regions.append(region)

    for loop in sorted(candidates, key=lambda item: item.id):
        fn = source.function(loop.function)
        if run and fn is not None and run[-1].block == loop.block:
            # The arrays and no resizing of their sections in between.
            wanted = run_names | names[loop.id] | run_symbols | symbols[loop.id]
            # One region never maps one object under two names (`c = a + 10`).
            joined = run_names | names[loop.id]
            exact = same_sections([uses[r.id] for r in (*run, loop)])
            if shared_storage(
                joined, fn, source, analysis.program, sections=exact, loops=(*run, loop)
            ) is None and host_of(fn).clean(
                loop.block, run[-1].span.end_byte, loop.id, wanted
            ):
                run.append(loop)
                run_names |= names[loop.id]
                run_symbols |= symbols[loop.id]
                continue
        close()
        run = [loop]
        run_names = set(names[loop.id])
        run_symbols = set(symbols[loop.id])
    close()
    return regions
