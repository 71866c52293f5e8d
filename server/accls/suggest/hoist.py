"""Hoist parallel regions out of sequential loops: one region, `omp for` inside.

A time or pivot loop whose body runs parallel loops opens a region per iteration when
each gets `parallel for`. The hoisted form opens it once:

    #pragma omp parallel            every thread runs the sequential loop
    for (t = 0; t < steps; t++) {
      #pragma omp for               the parallel loops share out their iterations
      for (...) ...
      #pragma omp single            statements that write shared data run once
      { ... }
    }

It keeps the program's order: `omp for` and `single` end in a barrier, so each
statement sees what the previous ones wrote. Statements that only compute private
values (variables declared in the body) run on every thread. The hoist is proposed only
when that is provably the same program:

- the sequential loop's bounds and variable are not written in its body, it has no
  early exit, and its variable is not read after it (a private copy is not copied out);
- a variable declared in its body is not written by a parallel loop (each thread would
  have its own, partly filled copy), nor by a statement run once;
- a statement run on every thread writes only such variables (not through pointers) and
  calls only pure library functions; declarations are never run once (braces would
  scope them);
- no other pragma sits in the body, nor is one to be inserted there outside the
  shared-out loops (`--all` keeps a `parallel for` the cost model rejects).

Every `omp for`, `single` and `barrier` is a synchronisation per iteration of the
sequential loop. When the work of the shared-out loops is known, it must outweigh
what those synchronisations cost (a region's worth, REGION_UNITS, each): else the
threads would mostly wait at barriers, and the loops keep their own pragmas, which
the cost model judges one by one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from accls.analysis import FileAnalysis
from accls.analysis.cost import REGION_UNITS, Estimate
from accls.frontend import Clause, Loop, Span
from accls.frontend.library import Effect, library_function
from accls.frontend.statements import BodyStatement, body_statements
from accls.suggest.pragma import Dialect, Pragma, Target
from accls.suggest.suggestion import Suggestion

__all__ = ["HoistedRegion", "hoist_regions", "hoisted_edits"]


class _Role(StrEnum):
    FOR = "for"  # a parallel loop: `omp for`
    EVERY = "every"  # computes private values: every thread runs it
    ONCE = "once"  # writes shared data: `single`


@dataclass(frozen=True, slots=True)
class HoistedRegion:
    """One parallel region around a sequential loop, and what goes inside it."""

    outer: Loop
    pragma: Pragma  # `#pragma omp parallel` with the clauses it needs
    loops: tuple[Suggestion, ...]  # the parallel loops, their pragmas now `omp for`
    singles: tuple[tuple[Span, Span], ...]  # first and last statement of each run
    barriers: tuple[Span, ...]  # statements that need a `barrier` line before them
    reasons: tuple[str, ...]


def _inside(span: Span, outer: Span) -> bool:
    return outer.start_byte <= span.start_byte and span.end_byte <= outer.end_byte


def _body_locals(outer: Loop) -> frozenset[str]:
    """Variables declared in the body, outside the body's own loops.

    A `static` one is not among them: it is one variable that all threads share.
    """
    names = {v.name for v in outer.locals if not v.static}
    for child in outer.children:
        names -= {v.name for v in child.locals}
        if child.var_declared and child.var:
            names.discard(child.var)
    return frozenset(names)


def _writes_privately(
    stmt: BodyStatement, outer: Loop, private: frozenset[str]
) -> bool | None:
    """Whether it writes only body variables; None when it writes shared data too.

    True: it writes only variables declared in the body (not through pointers) and calls
    only pure library functions. False: it writes shared data.
    """
    shared = False
    local = False
    for ref in outer.refs:
        if not _inside(ref.span, stmt.span) or not ref.is_write:
            continue
        if ref.name in private and not ref.deref:
            local = True
        else:
            shared = True
    for call in outer.calls:
        if _inside(call.span, stmt.span):
            entry = library_function(call.name)
            if entry is None or entry.effect is not Effect.PURE:
                shared = True
    if shared and local:
        return None
    return not shared


def _plan(
    analysis: FileAnalysis,
    outer: Loop,
    parallel: Mapping[int, Suggestion],
) -> tuple[list[tuple[BodyStatement, _Role]], list[str]] | None:
    """Each body statement with its role, and the reasons; None when not provable."""
    source = analysis.source
    statements = body_statements(source, outer)
    if not statements or outer.var is None or outer.exits or outer.pragmas:
        return None
    if outer.volatile_bounds or outer.var in outer.live_after:
        return None
    if any(_inside(c.span, outer.header) for c in outer.calls):
        return None
    header_writes = [
        r
        for r in outer.refs
        if r.is_write and r.name == outer.var and not _inside(r.span, outer.header)
    ]
    if header_writes:
        return None
    private = _body_locals(outer)
    roles: list[tuple[BodyStatement, _Role]] = []
    by_start = {s.loop.span.start_byte: s for s in parallel.values()}
    for stmt in statements:
        top = by_start.get(stmt.span.start_byte)
        if top is not None:
            if any(
                r.is_write and r.name in private and _inside(r.span, stmt.span)
                for r in outer.refs
            ):
                return None  # a body variable filled by a shared-out loop
            roles.append((stmt, _Role.FOR))
            continue
        if any(_inside(s.loop.span, stmt.span) for s in parallel.values()):
            return None  # a parallel loop below an `if` or a sequential loop
        private_only = _writes_privately(stmt, outer, private)
        if private_only is None:
            return None
        if private_only:
            roles.append((stmt, _Role.EVERY))
        elif stmt.kind == "declaration":
            return None
        else:
            roles.append((stmt, _Role.ONCE))
    if not any(role is _Role.FOR for _, role in roles):
        return None
    count = sum(1 for _, role in roles if role is _Role.FOR)
    reasons = [
        f"one parallel region around the sequential loop at line {outer.line} instead "
        f"of {count} per iteration: `omp for` shares out each parallel loop, and its "
        "barrier keeps the statements in order"
    ]
    if any(role is _Role.ONCE for _, role in roles):
        reasons.append(
            "statements that write shared data run once (`single`, which ends in a "
            "barrier)"
        )
    if any(role is _Role.EVERY for _, role in roles):
        reasons.append(
            "statements that compute values declared in the loop body run on every "
            "thread"
        )
    return roles, reasons


def hoist_regions(
    analysis: FileAnalysis,
    suggestions: Sequence[Suggestion],
    estimates: Mapping[int, Estimate],
) -> tuple[HoistedRegion, ...]:
    """The regions to hoist out of the file's sequential loops (OpenMP on a CPU).

    `suggestions` are those to be inserted; a loop's pragma takes part when it is a
    plain `parallel for` the cost model does not reject.
    """
    parallel: dict[int, Suggestion] = {
        s.loop.id: s
        for s in suggestions
        if s.pragma is not None
        and s.existing is None
        and not s.inner
        and s.options.dialect is Dialect.OPENMP
        and s.options.target is Target.CPU
        and s.pragma.directive == "parallel for"
        and (e := estimates.get(s.loop.id)) is not None
        and e.profitable is not False
    }
    taken: list[Span] = []
    out: list[HoistedRegion] = []
    for outer in analysis.source.loops():
        if outer.id in parallel or any(_inside(outer.span, t) for t in taken):
            continue
        if any(r.directive.dialect == "omp" for r in outer.regions):
            continue
        mine = {i: s for i, s in parallel.items() if _inside(s.loop.span, outer.body)}
        if not mine or _other_pragmas(suggestions, mine, outer):
            continue
        planned = _plan(analysis, outer, mine)
        if planned is None:
            continue
        roles, reasons = planned
        if not _pays(roles, mine, estimates):
            continue
        if not all(_starts_line(analysis, stmt.span) for stmt, _ in roles) or not (
            _starts_line(analysis, outer.keyword)
        ):
            continue
        clauses = () if outer.var_declared else (Clause("private", outer.var or ""),)
        starts = {s.loop.span.start_byte: s for s in mine.values()}
        loops = tuple(
            replace(top, pragma=replace(top.pragma, directive="for"))
            for stmt, role in roles
            if role is _Role.FOR
            and (top := starts[stmt.span.start_byte]).pragma is not None
        )
        out.append(
            HoistedRegion(
                outer=outer,
                pragma=Pragma(Dialect.OPENMP, "parallel", clauses),
                loops=loops,
                singles=_runs(roles),
                barriers=_barriers(roles),
                reasons=tuple(reasons),
            )
        )
        taken.append(outer.span)
    return tuple(out)


def _other_pragmas(
    suggestions: Sequence[Suggestion], mine: Mapping[int, Suggestion], outer: Loop
) -> bool:
    """Whether a pragma to be inserted in the body is not one of the shared-out loops'.

    `--all` inserts a `parallel for` the cost model rejects: in the region it would
    sit in a `single` (a pragma before `single` does not compile) or be nested.
    """
    for s in suggestions:
        if s.pragma is None or s.existing is not None or s.loop.id in mine:
            continue
        if not _inside(s.loop.span, outer.body):
            continue
        if not any(_inside(s.loop.span, m.loop.body) for m in mine.values()):
            return True
    return False


def _pays(
    roles: list[tuple[BodyStatement, _Role]],
    loops: Mapping[int, Suggestion],
    estimates: Mapping[int, Estimate],
) -> bool:
    """False when the shared-out work per iteration is known and below its barriers.

    Each `omp for` and each run of `single` ends in a barrier, and so does each
    explicit `barrier`: a region's worth of work apiece.
    """
    syncs = len(_runs(roles)) + len(_barriers(roles))
    work = 0
    starts = {s.loop.span.start_byte: s.loop.id for s in loops.values()}
    for stmt, role in roles:
        if role is not _Role.FOR:
            continue
        syncs += 1
        found = estimates.get(starts[stmt.span.start_byte])
        if found is None or found.units is None:
            return True  # unknown work: the cost model kept each loop
        work += found.units
    return work >= syncs * REGION_UNITS


def _starts_line(analysis: FileAnalysis, span: Span) -> bool:
    """True when only white space precedes `span` on its line."""
    data = analysis.source.data
    start = data.rfind(b"\n", 0, span.start_byte) + 1
    return not data[start : span.start_byte].strip()


def _barriers(roles: list[tuple[BodyStatement, _Role]]) -> tuple[Span, ...]:
    """Statements that write shared data right after one every thread runs.

    `omp for` and `single` end in a barrier; a statement every thread runs does not, so
    a thread could still read there (this iteration, or the last one's end) what the
    next construct writes. The body is a cycle: its first statement follows its last.
    """
    out: list[Span] = []
    for k, (stmt, role) in enumerate(roles):
        before = roles[k - 1][1] if k else roles[-1][1]
        if role is _Role.EVERY or before is not _Role.EVERY:
            continue
        out.append(stmt.span)
    return tuple(out)


def _runs(roles: list[tuple[BodyStatement, _Role]]) -> tuple[tuple[Span, Span], ...]:
    """Maximal runs of statements run once, as (first, last) spans."""
    runs: list[tuple[Span, Span]] = []
    first: Span | None = None
    last: Span | None = None
    for stmt, role in roles:
        if role is _Role.ONCE:
            first = first or stmt.span
            last = stmt.span
            continue
        if first is not None and last is not None:
            runs.append((first, last))
        first = last = None
    if first is not None and last is not None:
        runs.append((first, last))
    return tuple(runs)


def hoisted_edits(
    data: bytes, regions: Sequence[HoistedRegion], newline: str = "\n"
) -> list[tuple[int, int, str]]:
    """(byte offset, order at that offset, text) insertions for the regions' pragmas.

    The `omp for` pragmas are not among them: they are the regions' suggestions.
    """

    def line_start(offset: int) -> tuple[int, str]:
        start = data.rfind(b"\n", 0, offset) + 1
        indent = data[start:offset]
        pad = indent[: len(indent) - len(indent.lstrip(b" \t"))]
        return start, pad.decode("utf-8", errors="replace")

    edits: list[tuple[int, int, str]] = []
    for region in regions:
        start, pad = line_start(region.outer.keyword.start_byte)
        edits.append((start, 1, f"{pad}{region.pragma.render()}{newline}"))
        for span in region.barriers:
            begin, indent = line_start(span.start_byte)
            edits.append((begin, 0, f"{indent}#pragma omp barrier{newline}"))
        for first, last in region.singles:
            begin, indent = line_start(first.start_byte)
            if first == last:  # one statement: `single` applies to it as it is
                edits.append((begin, 2, f"{indent}#pragma omp single{newline}"))
                continue
            single = f"{indent}#pragma omp single{newline}{indent}{{{newline}"
            edits.append((begin, 2, single))
            edits.append((last.end_byte, 0, f"{newline}{indent}}}"))
    return edits
