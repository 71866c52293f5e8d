"""Race findings for loops that already carry a parallel pragma."""

from __future__ import annotations

import re

from accls.analysis.analyze import FileAnalysis
from accls.analysis.callee_guards import callee_atomic, callee_branch
from accls.analysis.findings import (
    BAD_COLLAPSE,
    CARRIED_DEPENDENCE,
    EARLY_EXIT,
    POSSIBLE_DEPENDENCE,
    TOO_LARGE_TO_CHECK,
    UNPROTECTED_UPDATE,
    Finding,
    Severity,
    finding,
)
from accls.analysis.linear_overlap import linear_collision
from accls.analysis.mhp_loop_locks import (
    NO_LOCKS,
    callee_guarded,
    half_locked_findings,
    loop_locks,
)
from accls.analysis.model import Dependence, DepKind, ObstacleCode
from accls.analysis.pragma_scope import associated_loops, collapse_count, scope_of
from accls.analysis.private_pointers import shared_blocks
from accls.analysis.race_exemptions import (
    in_blocks,
    linear_disjoint,
    one_iteration,
    ordered_blocks,
    permuted_index,
    thread_slot,
)
from accls.analysis.races_alias import alias_findings
from accls.analysis.races_callees import call_findings, refs_by_span
from accls.analysis.races_capture import captured_apart, captured_neighbour
from accls.analysis.races_division import index_collision
from accls.analysis.races_doacross import doacross_findings
from accls.analysis.races_exclusion import mixed_exclusion_findings
from accls.analysis.races_first_element import first_element_collision
from accls.analysis.races_index import colliding_write, distinct_index, repeated_index
from accls.analysis.races_rows import escape_findings
from accls.analysis.races_simd_calls import simd_call_findings
from accls.analysis.races_strides import fixed_stride_class
from accls.analysis.races_table import repeated_finding, table_finding, table_verdict
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import Directive, ExitKind, Loop, Ref, Span

__all__ = ["LOCK_CALLS", "dependence_findings", "shape_findings"]

_WORD = re.compile(r"(?<!\w)(?!\d)\w+")

LOCK_CALLS = frozenset(
    {"omp_set_lock", "omp_set_nest_lock", "pthread_mutex_lock", "omp_test_lock"}
)
"""Calls that protect what follows: the analysis cannot pair them, so it stays quiet."""


def _ref_text(ref: Ref | None, name: str) -> str:
    return name if ref is None or not ref.subscripts else ref.render()


def _describe(dep: Dependence, refs: dict[Span, Ref]) -> str:
    src = _ref_text(refs.get(dep.source), dep.array)
    snk = _ref_text(refs.get(dep.sink), dep.array)
    if not dep.exact:
        why = dep.reason or "its subscripts cannot be analysed exactly"
        return (
            f"`{src}` (line {dep.source.line}) and `{snk}` (line {dep.sink.line}) "
            f"may touch one element of `{dep.array}`: {why}"
        )
    verb = {"flow": "read", "anti": "written", "output": "written"}[dep.kind.value]
    return (
        f"{dep.kind.value} dependence on `{dep.array}`: `{src}` (line "
        f"{dep.source.line}) is {verb} as `{snk}` (line {dep.sink.line}) by a later "
        "iteration"
    )


def _protected(loop: Loop, dialect: str) -> set[str]:
    """Arrays whose every access sits inside an `atomic`/`critical` of the dialect."""
    safe: dict[str, bool] = {}
    for ref in loop.refs:
        if not is_scalar_ref(ref):
            safe[ref.name] = safe.get(ref.name, True) and ref.atomic == dialect
    return {name for name, ok in safe.items() if ok}


def _distance(dep: Dependence) -> int | None:
    for dist, lid in zip(dep.distance, dep.loops, strict=False):
        if lid == dep.carrier:
            return dist
    return None


def _simd_only(directive: Directive) -> bool:
    words = set(directive.name.split())
    return directive.dialect == "omp" and words <= {"simd", "declare"}


def _tolerated(dep: Dependence, directive: Directive) -> bool:
    """Dependences a simd construct allows: backward reads, or beyond `safelen`."""
    if not _simd_only(directive):
        return False
    if dep.kind is DepKind.ANTI:
        return True
    limit = directive.clause("safelen") or directive.clause("simdlen")
    dist = _distance(dep)
    if limit is None or limit.args is None or dist is None:
        return False
    return limit.args.strip().isdigit() and abs(dist) >= int(limit.args.strip())


def locked(loop: Loop) -> bool:
    """True if the loop takes a lock: it protects updates in ways we cannot see."""
    return any(call.name in LOCK_CALLS for call in loop.calls)


def dependence_findings(
    analysis: FileAnalysis, loop: Loop, directive: Directive
) -> list[Finding]:
    """Carried dependences, indirect updates and unknown calls under the pragma."""
    locks = loop_locks(loop, analysis.source) if locked(loop) else NO_LOCKS
    if locks is None:
        return []
    guarded = locks.guarded | {plain.name for plain, _, _ in locks.half}
    guarded |= callee_guarded(loop, analysis.source)
    blocks: list[Span] = []
    if directive.clause("ordered") is not None:
        found = ordered_blocks(analysis.source, loop)
        if found is None:
            # doacross: `depend(sink/source)` orders what it names
            return doacross_findings(analysis, loop, directive)
        blocks = found
    dialect = directive.dialect
    loops = associated_loops(loop, collapse_count(directive))
    where = {"directive": directive.name, "line": loop.line}
    for inner in loops:
        if any(o.code == ObstacleCode.TOO_LARGE for o in analysis.of(inner).obstacles):
            return [finding(TOO_LARGE_TO_CHECK, loop.keyword, **where)]
    reported: set[str] = set()
    scope = scope_of(loop, directive, analysis.source)
    private = set(scope.private) | set(scope.reductions)
    private |= {v.name for inner in loops for v in inner.locals}
    private -= shared_blocks(loop, directive, analysis.source.function(loop.function))
    out = half_locked_findings(loop, directive, locks, frozenset(private))
    out.extend(mixed_exclusion_findings(loop, directive, analysis.source, private))
    protected = _protected(loop, dialect) | private | guarded
    by_span = refs_by_span(loop, analysis.source)
    table = table_verdict(loop, analysis.source) if len(loops) == 1 else None
    if table is not None and table.clash is not None:
        out.append(table_finding(table.clash, where))
        reported |= {table.clash[0].name, table.clash[1].name}
    protected |= table.apart if table is not None else frozenset()
    for inner in loops:
        facts = analysis.of(inner)
        hist = {ref.name for ref in facts.atomics}
        live = [
            d
            for d in facts.dependences
            if not _tolerated(d, directive)
            and not (in_blocks(d.source, blocks) and in_blocks(d.sink, blocks))
            and not linear_disjoint(d, directive, by_span, inner)
            and not permuted_index(d, by_span, inner, analysis.source)
            and not one_iteration(d, loop, analysis.source)
            and not thread_slot(d, by_span, inner, analysis.source)
            and not captured_apart(d, by_span, inner, analysis.source, private)
            and not callee_atomic(d, by_span, inner, analysis.source, dialect)
        ]
        for ref in facts.atomics:
            if ref.name in reported or ref.name in protected:
                continue
            if not any(d.array == ref.name for d in live):
                continue  # `a[idx[i]]` with `idx` the identity: no clash
            if in_blocks(ref.span, blocks):
                continue
            reported.add(ref.name)
            text = _ref_text(ref, ref.name)
            repeated: tuple[str, int] | str | None = repeated_index(
                ref, loop, analysis.source
            )
            repeated = repeated or index_collision(ref, loop, analysis.source)
            if repeated:
                out.append(repeated_finding(ref, text, repeated, where))
                continue
            if distinct_index(ref, loop, analysis.source):
                continue  # `idx[k] = 2 * k + 1`: each iteration its own element
            out.append(
                finding(
                    UNPROTECTED_UPDATE,
                    ref.span,
                    ref=text,
                    write=ref.span.line,
                    line=loop.line,
                    dialect=dialect,
                )
            )
        deps = [d for d in live if d.array not in hist | protected]
        for dep in sorted(deps, key=lambda d: (not d.exact, d.source.start_byte)):
            if dep.array in reported:
                continue
            reported.add(dep.array)
            why = colliding_write(dep, by_span, loop, analysis.source)
            why = why or captured_neighbour(
                dep, by_span, inner, analysis.source, private
            )
            why = why or first_element_collision(
                dep, by_span, loop, _varying(inner), analysis.source
            )
            why = why or linear_collision(dep, directive, by_span, inner)
            exact = dep.exact and _certain(dep, by_span, inner, dialect)
            doubt = callee_branch(dep, by_span, inner, analysis.source)
            certain = (exact or bool(why)) and not doubt  # the callee's `if`
            kind = CARRIED_DEPENDENCE if certain else POSSIBLE_DEPENDENCE
            plain = _linearized(dep, by_span) and not _uses_varying(dep, by_span, inner)
            level = Severity.INFO if not certain and plain and not doubt else None
            out.append(
                finding(
                    kind,
                    dep.source,
                    level,
                    dep=why or _describe(dep, by_span),
                    source_line=dep.source.line,
                    sink_line=dep.sink.line,
                    **where,
                )
            )
    out.extend(escape_findings(analysis, loops, protected, where))
    if len(loops) == 1 and not out:
        out.extend(alias_findings(loop, directive, analysis.source, protected))
        out.extend(simd_call_findings(loop, directive, analysis.source))
    out.extend(call_findings(analysis, loop, directive))
    return out


def _varying(loop: Loop) -> set[str]:
    """Names whose value the exact tests may misjudge: written scalars, skewed vars."""
    names = {r.name for r in loop.refs if r.is_write and is_scalar_ref(r)}
    steady: set[str] = {loop.var} if loop.var else set()
    for inner in loop.walk()[1:]:
        bounds = _names(inner.lower_text + " " + inner.upper_text)
        bounds |= {n for lim in inner.limits for n in lim.poly.names()}
        # an enclosing loop's own variable is written only by its header; a
        # bound not read (`j < n && ok`) leaves the range, and the race, unsure
        if (
            inner.var
            and not bounds & (names - steady)
            and (inner.step in (1, -1) or fixed_stride_class(inner, loop))
            and _bounded(inner)
        ):
            steady.add(inner.var)
    return names - steady


def _bounded(loop: Loop) -> bool:
    """True when both ends of the loop's range are read (a polynomial or limits)."""
    rising = (loop.step or 0) > 0
    ends = {lim.upper == rising for lim in loop.limits}  # True: the condition's end
    ends |= {False} if loop.lower is not None else set()
    ends |= {True} if loop.upper is not None else set()
    return ends == {False, True}


def _certain(dep: Dependence, refs: dict[Span, Ref], loop: Loop, dialect: str) -> bool:
    """True if nothing about the dependence makes the exact verdict doubtful."""
    pair = [refs.get(dep.source), refs.get(dep.sink)]
    atomic = [r is not None and r.atomic == dialect for r in pair]
    if any(r is None for r in pair) or all(atomic):
        return False  # both sides atomic: they do not race
    if any(atomic) and dialect != "omp":
        return False  # OpenACC does not say a plain access races an atomic one
    # OpenMP: an atomic side orders nothing for the plain one; the pair races.
    return not _uses_varying(dep, refs, loop)


def _uses_varying(dep: Dependence, refs: dict[Span, Ref], loop: Loop) -> bool:
    """True if a subscript of the pair names a scalar the loop changes oddly."""
    pair = [refs.get(dep.source), refs.get(dep.sink)]
    used = {
        name
        for r in pair
        if r is not None
        for s in r.subscripts
        for name in _names(s.text)
    }
    return bool(used & _varying(loop))


def _linearized(dep: Dependence, refs: dict[Span, Ref]) -> bool:
    """True for one polynomial subscript on both sides, like `a[i * m + j]`.

    Such an index repeats across iterations only for degenerate sizes, so the
    doubt is worth a note, not a warning.
    """
    pair = [refs.get(dep.source), refs.get(dep.sink)]
    if any(r is None for r in pair):
        return False
    texts = {tuple(s.text for s in r.subscripts) for r in pair if r is not None}
    return len(texts) == 1 and all(
        s.poly is not None and not s.indirect
        for r in pair
        if r is not None
        for s in r.subscripts
    )


def shape_findings(loop: Loop, directive: Directive) -> list[Finding]:
    """Early exits and `collapse` over loops that do not nest perfectly."""
    out: list[Finding] = []
    count = collapse_count(directive)
    loops = associated_loops(loop, count)
    where = {"directive": directive.name, "line": loop.line}
    severity = None if directive.dialect == "omp" else Severity.WARNING
    for inner in loops:
        for exit_ in inner.exits:
            if exit_.kind is ExitKind.EXIT:
                continue
            out.append(
                finding(
                    EARLY_EXIT,
                    exit_.span,
                    severity,
                    exit=exit_.kind.value,
                    exit_line=exit_.span.line,
                    **where,
                )
            )
            return out
    span = directive.span or loop.keyword
    if len(loops) < count:
        why = (
            f"only {len(loops)} loop(s) are perfectly nested at line {loop.line}; "
            "statements between the loops stop the collapse"
        )
        out.append(finding(BAD_COLLAPSE, span, count=count, line=span.line, why=why))
        return out
    outer_vars: set[str] = set()
    for inner in loops:
        bounds = (inner.lower_text + " " + inner.upper_text).replace("(", " ")
        used = sorted(v for v in outer_vars if v in _names(bounds))
        if used:
            why = (
                f"the bounds of the loop at line {inner.line} use `{used[0]}`, so the "
                "nest is not rectangular (OpenMP 5.0 or later only; OpenACC forbids it)"
            )
            out.append(
                finding(
                    BAD_COLLAPSE,
                    span,
                    Severity.WARNING if directive.dialect == "omp" else None,
                    count=count,
                    line=span.line,
                    why=why,
                )
            )
            break
        if inner.var:
            outer_vars.add(inner.var)
    return out


def _names(text: str) -> set[str]:
    """The identifiers of `text`: its words that do not start with a digit."""
    return set(_WORD.findall(text))
