"""Scalars one iteration hands the next: privatized carries (ACC112), the advice."""

from __future__ import annotations

from accls.analysis.findings import CARRIED_SCALAR_PRIVATIZED, Finding, finding
from accls.analysis.model import Obstacle, ObstacleCode
from accls.analysis.pragma_scope import Scope
from accls.frontend import Directive, Loop, Span

__all__ = ["carried_fix", "privatized_carry", "write_span"]


def write_span(loop: Loop, name: str) -> Span:
    """The first write of `name` in the loop, else the loop keyword."""
    for ref in loop.refs:
        if ref.name == name and ref.is_write and not ref.subscripts:
            return ref.span
    return loop.keyword


def carried_fix(obstacle: Obstacle, name: str) -> str:
    """The advice for a shared scalar whose value may reach another iteration.

    `private` would be wrong here: each thread's copy would start undefined and
    the value the next iteration reads (a running total) would be lost.
    """
    if obstacle.code == ObstacleCode.CONDITIONAL_LAST:
        return (
            f"`private({name})` would lose the value read after the loop (the last "
            "iteration may not write it): keep the loop serial or restructure it"
        )
    return (
        f"`private({name})` would lose the value the next iteration reads: use a "
        "reduction if it is one, or keep the loop serial"
    )


def privatized_carry(
    obstacle: Obstacle, name: str, scope: Scope, loop: Loop, directive: Directive
) -> Finding | None:
    """ACC112 when a clause gives each thread a copy of a carried scalar."""
    clause = _carry_clause(name, scope, directive)
    if clause is None or not _proven_carry(loop, name):
        return None
    fix = (
        "rewrite it in closed form (accls offers the rewrite) or keep the loop serial"
        if obstacle.code == ObstacleCode.INDUCTION_VARIABLE
        else "keep the loop serial or restructure it"
    )
    return finding(
        CARRIED_SCALAR_PRIVATIZED,
        write_span(loop, name),
        var=name,
        read=obstacle.line,
        clause=clause,
        line=loop.line,
        fix=fix,
    )


def _proven_carry(loop: Loop, name: str) -> bool:
    """True when an iteration surely reads `name` before writing it.

    The classification is conservative (a write in both arms of an `if` counts
    as conditional), so an error needs more: a read that runs in every
    iteration with no write of the scalar before it at all.
    """
    for ref in loop.refs:
        if ref.name != name or ref.subscripts or ref.deref:
            continue
        every_iteration = (
            ref.context[-1:] == (loop.id,)
            and ref.loops[-1:] == (loop.id,)
            and not ref.guarded
        )
        if ref.is_read and every_iteration:
            return True
        if ref.is_write:
            return False
    return False


def _carry_clause(name: str, scope: Scope, directive: Directive) -> str | None:
    """The clause text that privatizes `name`, if one does."""
    op = scope.reductions.get(name)
    if op is not None:
        return f"`reduction({op}:{name})`"
    for d in scope.directives:
        for clause in d.clauses:
            if clause.name in ("private", "firstprivate", "lastprivate") and any(
                part.strip() == name for part in (clause.args or "").split(",")
            ):
                return f"`{clause.name}({name})`"
    if scope.all_private:
        return "`default(private)`"
    words = set(directive.name.split())
    if directive.dialect == "acc" and "parallel" in words:
        return "the implicit firstprivate of OpenACC `parallel`"
    return None
