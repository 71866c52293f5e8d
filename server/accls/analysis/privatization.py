"""Scalar findings: shared writes, missing or wrong reductions, missing lastprivate."""

from __future__ import annotations

from accls.analysis.analyze import FileAnalysis
from accls.analysis.carried_scalars import carried_fix, privatized_carry, write_span
from accls.analysis.exclusion_words import guarded_read_text
from accls.analysis.findings import (
    DEFAULT_NONE,
    MISSING_LASTPRIVATE,
    MISSING_REDUCTION,
    SHARED_SCALAR_WRITE,
    WRONG_REDUCTION,
    Finding,
    Severity,
    finding,
)
from accls.analysis.member_once import (
    atomic_member_read,
    other_access,
    plain_member_writes,
    touched_once,
)
from accls.analysis.mhp_loop_locks import NO_LOCKS, callee_guarded, loop_locks
from accls.analysis.model import Obstacle, ObstacleCode, ScalarClass, ScalarFact
from accls.analysis.pragma_scope import (
    Scope,
    associated_loops,
    collapse_count,
    loop_directive,
    scope_of,
)
from accls.analysis.races import locked
from accls.analysis.shared_scalar_writes import (
    callee_write,
    doubt_level,
    shared_write,
    through_callee,
)
from accls.frontend import Directive, Function, Loop, Ref, SourceFile, Var

__all__ = ["scalar_findings"]

# Obstacles that say a scalar's value flows from one iteration to the next.
_CARRIED = frozenset(
    {
        ObstacleCode.SCALAR_CARRIED,
        ObstacleCode.INDUCTION_VARIABLE,
        ObstacleCode.CONDITIONAL_INDUCTION,
    }
)

_SIMD_LAST = frozenset({"simd"})


def _function_local(name: str, fn: Function | None) -> bool:
    """True for locals and by-value parameters: per thread in an orphaned loop."""
    var: Var | None = fn.lookup(name) if fn is not None else None
    return var is not None


_SIMD_ONLY = frozenset({"simd", "declare", "end"})


def _is_private(
    name: str,
    fact: ScalarFact | None,
    scope: Scope,
    fn: Function | None,
    assoc: set[str],
    lanes: bool = False,
) -> bool:
    """True if every thread (with `lanes`, every simd lane) has its own `name`.

    An orphaned worksharing loop gives each thread its own function locals, but the
    lanes of a `simd` loop run on one thread and share them.
    """
    if name in assoc or name in scope.private or scope.all_private:
        return True
    if fact is not None and fact.declared_inside:
        return True
    return scope.orphaned and not lanes and _function_local(name, fn)


def _reduction(
    fact: ScalarFact, scope: Scope, loop: Loop, directive: Directive
) -> Finding | None:
    op = fact.op.value if fact.op is not None else "+"
    span = write_span(loop, fact.name)
    clause = scope.reductions.get(fact.name)
    if clause is None:
        # OpenACC compilers (nvc) detect scalar reductions; the standard does not.
        # A read on another line (the test of `if (v > m) m = v;`) races too.
        reads = [
            r.span.line
            for r in loop.refs
            if r.name == fact.name and not r.is_write and r.span.line != span.line
        ]
        read: dict[str, object] = {"reads": ""}
        if reads:
            read = {"read": reads[0], "reads": f", read at line {reads[0]}"}
        return finding(
            MISSING_REDUCTION,
            span,
            None if directive.dialect == "omp" else Severity.WARNING,
            var=fact.name,
            op=op,
            write=span.line,
            line=loop.line,
            **read,
        )
    if clause != op and clause not in {o.value for o in fact.also}:
        line = directive.span.line if directive.span is not None else loop.line
        return finding(
            WRONG_REDUCTION,
            span,
            var=fact.name,
            op=op,
            clause=clause,
            write=span.line,
            line=line,
        )
    return None


def _first_write(loop: Loop, name: str) -> Ref:
    return next(r for r in loop.refs if r.name == name and r.is_write)


def _atomic_only(loop: Loop, name: str, dialect: str) -> tuple[int, int | None] | None:
    """(a write line, a plain read line or None) when every write is atomic."""
    refs = [r for r in loop.refs if r.name == name]
    writes = [r for r in refs if r.is_write]
    if not writes or any(r.atomic != dialect for r in writes):
        return None
    plain = [r.span.line for r in refs if not r.is_write and r.atomic != dialect]
    return writes[0].span.line, plain[0] if plain else None


def scalar_findings(
    analysis: FileAnalysis, loop: Loop, directive: Directive
) -> list[Finding]:
    """Findings about how the pragma shares the scalars the loop writes."""
    locks = loop_locks(loop, analysis.source) if locked(loop) else NO_LOCKS
    if locks is None:
        return []
    guarded = locks.guarded | {plain.name for plain, _, _ in locks.half}
    guarded |= callee_guarded(loop, analysis.source)
    source = analysis.source
    facts = analysis.of(loop)
    scope = scope_of(loop, directive, source)
    fn = source.function(loop.function)
    assoc = {
        inner.var
        for inner in associated_loops(loop, collapse_count(directive))
        if inner.var
    }
    # A loop with its own loop construct privatizes its variable there.
    assoc |= {
        inner.var
        for inner in loop.walk()[1:]
        if inner.var and any(loop_directive(inner, d) for d in ("acc", "omp"))
    }
    omp = directive.dialect == "omp"
    simd = omp and "simd" in directive.name.split()
    # Fortran: the variables of sequential `do` loops in a parallel construct are
    # private there (OpenMP, data-sharing rules: predetermined). Not in a lone
    # `simd`, whose lanes share one thread's variables; an orphaned `do` is in no
    # construct we see, so only its function's own variables count there.
    if omp and loop.fortran and not set(directive.name.split()) <= _SIMD_ONLY:
        assoc |= {
            inner.var
            for inner in loop.walk()[1:]
            if inner.var and (not scope.orphaned or _function_local(inner.var, fn))
        }
    out: list[Finding] = []
    wrote_private = False
    by_name = {f.name: f for f in facts.scalars}
    for fact in facts.scalars:
        if fact.name in guarded:
            continue  # every access holds one lock
        if fact.cls is ScalarClass.REDUCTION:
            if fact.name in scope.reductions or not _is_private(
                fact.name, fact, scope, fn, assoc, lanes=simd
            ):
                found = _reduction(fact, scope, loop, directive)
                out.extend([found] if found is not None else [])
            continue
        if not omp:
            continue
        if fact.cls is ScalarClass.LASTPRIVATE:
            simd_var = (
                fact.name == loop.var and set(directive.name.split()) <= _SIMD_LAST
            )
            if (
                fact.name in scope.lastprivate
                or simd_var
                or fact.name in scope.reductions
                or fact.name in scope.region_locals
            ):
                continue
            span = write_span(loop, fact.name)
            # Shared, the scratch value races before the value after the loop is lost.
            shared = not _is_private(fact.name, fact, scope, fn, assoc)
            out.append(
                shared_write(fact, loop, directive, source, "lastprivate")
                if shared
                else finding(MISSING_LASTPRIVATE, span, var=fact.name, line=loop.line)
            )
        elif fact.cls is ScalarClass.PRIVATE:
            if fact.name in scope.reductions:
                continue
            if _is_private(fact.name, fact, scope, fn, assoc):
                wrote_private = wrote_private or (
                    fact.name in scope.private and fact.name not in assoc
                )
                continue
            out.append(shared_write(fact, loop, directive, source, "private"))
    for obstacle in facts.obstacles:
        name = obstacle.variable
        if obstacle.code is ObstacleCode.MEMBER_WRITE and name and omp:
            found = _member_write(
                obstacle, name, scope, fn, assoc, loop, directive, source
            )
            out.extend([found] if found is not None and name not in guarded else [])
            continue
        if obstacle.code not in (*_CARRIED, ObstacleCode.CONDITIONAL_LAST) or not name:
            continue
        if obstacle.code in _CARRIED:
            found = privatized_carry(obstacle, name, scope, loop, directive)
            if found is not None:
                out.append(found)
                continue
        if not omp or name in scope.reductions or name in by_name or name in guarded:
            continue
        if _is_private(name, None, scope, fn, assoc) or name in scope.lastprivate:
            continue
        span = write_span(loop, name)
        atomic = _atomic_only(loop, name, directive.dialect)
        if atomic is not None and atomic[1] is None:
            continue  # every access is atomic: the updates do not race
        worded = (
            guarded_read_text(
                name, _first_write(loop, name).span.start_byte, atomic[1], source
            )
            if atomic is not None and atomic[1] is not None
            else None
        )
        out.append(
            finding(
                SHARED_SCALAR_WRITE,
                span,
                doubt_level(loop, name, source),
                var=name,
                write=span.line,
                directive=directive.name,
                why=worded[0]
                if worded is not None
                else obstacle.message + through_callee(loop, name, source),
                read=atomic[1] if atomic is not None else obstacle.line,
                fix=carried_fix(obstacle, name) if worded is None else worded[1],
                **callee_write(loop, name, source),
            )
        )
    if omp and wrote_private and not out and _advise_default(directive):
        out.append(
            finding(
                DEFAULT_NONE,
                directive.span or loop.keyword,
                directive=directive.name,
                line=loop.line,
            )
        )
    return out


def _member_write(
    obstacle: Obstacle,
    name: str,
    scope: Scope,
    fn: Function | None,
    assoc: set[str],
    loop: Loop,
    directive: Directive,
    source: SourceFile,
) -> Finding | None:
    """ACC103 for a structure member every thread writes: `p.a += i`, `s->n++`."""
    refs = plain_member_writes(loop, name)
    mixed = None if refs else atomic_member_read(loop, name)
    # One iteration alone touching the field: not with `collapse`, whose inner
    # iterations under `if (i == K)` are several, on several threads.
    once = directive.clause("collapse") is None and touched_once(loop, name, source)
    if not (refs or mixed) or once:
        return None
    base = name.replace("->", ".").split(".")[0]
    if any(r.is_write and r.name == base for r in loop.refs):
        return None  # the base moves: `s = &a[i]`, whose own writes are checked
    if base in {v.name for v in loop.locals} or base in scope.reductions:
        return None  # the iteration's own structure, or a pointer it sets
    if _is_private(base, None, scope, fn, assoc) and "->" not in name:
        return None  # the thread's own structure
    if mixed is not None:
        return _atomic_member_finding(name, directive, source, *mixed)
    span = refs[0].span
    return finding(
        SHARED_SCALAR_WRITE,
        span,
        var=name,
        write=span.line,
        directive=directive.name,
        why=obstacle.message,
        fix="update it in a `critical` or with `atomic`, or accumulate into a "
        "local reduction variable and store it after the loop",
        **other_access(loop, name, span.line),  # another thread's access races too
    )


def _atomic_member_finding(
    name: str, directive: Directive, source: SourceFile, write: Ref, read: Ref
) -> Finding:
    """ACC103 for a member updated only under exclusion but read plainly."""
    why, fix = guarded_read_text(name, write.span.start_byte, read.span.line, source)
    return finding(
        SHARED_SCALAR_WRITE,
        write.span,
        var=name,
        write=write.span.line,
        directive=directive.name,
        why=why,
        read=read.span.line,
        fix=fix,
    )


def _advise_default(directive: Directive) -> bool:
    words = set(directive.name.split())
    return "parallel" in words and directive.clause("default") is None
