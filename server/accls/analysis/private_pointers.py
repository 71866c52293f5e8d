"""Privatized pointers: a copy of the pointer is not a copy of its memory.

ACC112 for a `private` pointer the loop uses but never sets.

`private(t)` on a pointer gives each thread (or gang) its own pointer, not its
own copy of the memory it points to, and that pointer starts unset: when
nothing in the loop assigns `t`, every `t[k]` or `*t` of the loop goes through
an uninitialised pointer where the serial loop used the block `t` pointed to.
Only a list item named bare is meant (`private(t[0:n])`, OpenACC's copy of a
block, is not), of a C or C++ pointer (not an array object, not Fortran),
whose address is never taken (a call could set it through that).

And `shared_blocks`: the pointers a `firstprivate` or `lastprivate` names
whose copies all keep the one value they had before the loop (the loop never
sets them), so every thread still reaches the same block: the dependences
through them stay races.
"""

from __future__ import annotations

import re

from accls.analysis.findings import CARRIED_SCALAR_PRIVATIZED, Finding, finding
from accls.analysis.pragma_scope import clause_names
from accls.frontend import Directive, Function, Loop, Ref

__all__ = ["private_pointer_findings", "shared_blocks"]

_PRIVATE = frozenset({"private"})
_COPIED = frozenset({"firstprivate", "lastprivate", "reduction", "linear"})
_VALUE_COPIES = frozenset({"firstprivate", "lastprivate"})


def _bare_in(name: str, directive: Directive, clauses: frozenset[str]) -> bool:
    """True when one of `clauses` lists `name` itself, not a section of it."""
    pattern = re.compile(rf"(?<![\w.>]){re.escape(name)}\b(?!\s*\[)")
    return any(
        clause.name in clauses and clause.args and pattern.search(clause.args)
        for clause in directive.clauses
    )


def _unset_pointer(
    name: str, loop: Loop, directive: Directive, fn: Function, clauses: frozenset[str]
) -> Ref | None:
    """The first use of pointer `name` listed bare in `clauses`, never set in `loop`."""
    var = fn.lookup(name)
    if var is None or var.pointers < 1 or var.dims or var.address_taken:
        return None
    if var.levels and not var.levels.startswith("*"):
        return None  # an array (of pointers): the copy is an array
    if fn.declarations(name) != 1 or not _bare_in(name, directive, clauses):
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
    names = clause_names((directive,), _VALUE_COPIES)
    return frozenset(
        n for n in names if _unset_pointer(n, loop, directive, fn, _VALUE_COPIES)
    )


def private_pointer_findings(
    loop: Loop, directive: Directive, fn: Function | None
) -> list[Finding]:
    """ACC112 for each `private` pointer of `directive` the loop uses unset."""
    if fn is None:
        return []
    names = clause_names((directive,), _PRIVATE)
    names -= clause_names((directive,), _COPIED)
    out: list[Finding] = []
    for name in sorted(names):
        used = _unset_pointer(name, loop, directive, fn, _PRIVATE)
        if used is None:
            continue
        out.append(
            finding(
                CARRIED_SCALAR_PRIVATIZED,
                used.span,
                var=name,
                read=used.span.line,
                clause=f"`private({name})`",
                line=loop.line,
                fix=(
                    f"each copy of the pointer starts unset (the clause copies "
                    f"`{name}`, not the memory it points to): drop it from "
                    "`private`, or give each thread its own block"
                ),
            )
        )
    return out
