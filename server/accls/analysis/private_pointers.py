"""Privatized pointers: a copy of the pointer is not a copy of its memory.

ACC112 for a `private` pointer the loop uses but never sets.

`private(t)` on a pointer gives each thread (or gang) its own pointer, not its
own copy of the memory it points to, and that pointer starts unset: when
nothing in the loop assigns `t`, every `t[k]` or `*t` of the loop goes through
an uninitialised pointer where the serial loop used the block `t` pointed to.
Only a list item named bare is meant (`private(t[0:n])`, OpenACC's copy of a
block, is not), of a C or C++ pointer (not an array object, not Fortran),
whose address is never taken (a call could set it through that). The clause
may be the loop's or an enclosing construct's (`parallel private(t)` around
`for`): the innermost construct naming the pointer decides, and a region must
not set it before the loop either.

And `shared_blocks`: the pointers a `firstprivate` or `lastprivate` names
whose copies all keep the one value they had before the loop (the loop never
sets them), so every thread still reaches the same block: the dependences
through them stay races.
"""

from __future__ import annotations

import re

from accls.analysis.findings import CARRIED_SCALAR_PRIVATIZED, Finding, finding
from accls.analysis.pragma_scope import clause_names
from accls.frontend import Directive, Function, Loop, Ref, Span

__all__ = ["private_pointer_findings", "shared_blocks"]

_PRIVATE = frozenset({"private"})
_COPIED = frozenset({"firstprivate", "lastprivate", "reduction", "linear"})
_VALUE_COPIES = frozenset({"firstprivate", "lastprivate"})
_SHARING = _PRIVATE | _COPIED | {"shared"}


def _bare_in(name: str, directive: Directive, clauses: frozenset[str]) -> bool:
    """True when one of `clauses` lists `name` itself, not a section of it."""
    pattern = re.compile(rf"(?<![\w.>]){re.escape(name)}\b(?!\s*\[)")
    return any(
        clause.name in clauses and clause.args and pattern.search(clause.args)
        for clause in directive.clauses
    )


def _deciding(name: str, loop: Loop, dialect: str) -> tuple[Directive, Span] | None:
    """The innermost directive whose data-sharing clause names `name`, and its span.

    The loop's own pragma first, then the enclosing constructs inward out: the
    innermost one that names a variable decides how it is shared (OpenMP's rule).
    """
    chain = [(r.directive, r.span) for r in loop.regions]
    chain += [(d, loop.span) for d in loop.pragmas]
    for directive, span in reversed(chain):
        if directive.dialect == dialect and name in clause_names(
            (directive,), _SHARING
        ):
            return directive, span
    return None


def _named(loop: Loop, dialect: str, clauses: frozenset[str]) -> set[str]:
    """Names that `clauses` of the loop's pragma or an enclosing construct list."""
    chain = [r.directive for r in loop.regions] + list(loop.pragmas)
    return clause_names(tuple(d for d in chain if d.dialect == dialect), clauses)


def _set_in(name: str, fn: Function, span: Span) -> bool:
    """True if the function assigns the pointer `name` itself inside `span`."""
    return any(
        r.name == name
        and r.is_write
        and not r.subscripts
        and not r.deref
        and span.start_byte <= r.span.start_byte < span.end_byte
        for r in fn.refs
    )


def _unset_pointer(
    name: str, loop: Loop, directive: Directive, fn: Function, clauses: frozenset[str]
) -> Ref | None:
    """The first use of pointer `name` listed bare in `clauses`, never set in `loop`.

    The clause may sit on an enclosing construct (`parallel private(t)` around
    `for`): then it must be the innermost to name `name`, and the region must
    not set the pointer before the loop either.
    """
    decided = _deciding(name, loop, directive.dialect)
    if decided is None:
        return None
    holder, span = decided
    if holder is not directive and _set_in(name, fn, span):
        return None
    var = fn.lookup(name)
    if var is None or var.pointers < 1 or var.dims or var.address_taken:
        return None
    if var.levels and not var.levels.startswith("*"):
        return None  # an array (of pointers): the copy is an array
    if fn.declarations(name) != 1 or not _bare_in(name, holder, clauses):
        return None
    refs = sorted(
        (r for r in loop.refs if r.name == name), key=lambda r: r.span.start_byte
    )
    if not refs or any(r.fortran for r in refs):
        return None
    if any(r.is_write and not r.subscripts and not r.deref for r in refs):
        return None  # the loop sets it (maybe before each use)
    if any(v.name == name for v in loop.locals):
        return None
    return next((r for r in refs if r.subscripts or r.deref), None)


def shared_blocks(
    loop: Loop, directive: Directive, fn: Function | None
) -> frozenset[str]:
    """Pointers `firstprivate`/`lastprivate` copy whose block all threads share."""
    if fn is None:
        return frozenset()
    names = _named(loop, directive.dialect, _VALUE_COPIES)
    return frozenset(
        n for n in names if _unset_pointer(n, loop, directive, fn, _VALUE_COPIES)
    )


def _clause_text(name: str, holder: Directive, span: Span, own: Directive) -> str:
    if holder is own:
        return f"`private({name})`"
    line = (holder.span or span).line
    return f"`private({name})` of the enclosing `{holder.name}` (line {line})"


def private_pointer_findings(
    loop: Loop, directive: Directive, fn: Function | None
) -> list[Finding]:
    """ACC112 for each `private` pointer (here or around) the loop uses unset."""
    if fn is None:
        return []
    out: list[Finding] = []
    for name in sorted(_named(loop, directive.dialect, _PRIVATE)):
        decided = _deciding(name, loop, directive.dialect)
        if decided is None or name in clause_names((decided[0],), _COPIED):
            continue
        used = _unset_pointer(name, loop, directive, fn, _PRIVATE)
        if used is None:
            continue
        out.append(
            finding(
                CARRIED_SCALAR_PRIVATIZED,
                used.span,
                var=name,
                read=used.span.line,
                clause=_clause_text(name, decided[0], decided[1], directive),
                line=loop.line,
                fix=(
                    f"each copy of the pointer starts unset (the clause copies "
                    f"`{name}`, not the memory it points to): drop it from "
                    "`private`, or give each thread its own block"
                ),
            )
        )
    return out
