"""ACC112 for arrays: a `private` array an iteration reads before it writes any of it.

A private copy starts uninitialised in every thread (and gang), so a read of
it that no write of the same iteration precedes gets an undefined value where
the serial loop read what the previous iteration (or the code before the
loop) left. Only a read that surely runs first is reported: unconditional,
directly in the loop's body, with no write of the array anywhere before it
in the iteration. Arrays a `firstprivate` or a `reduction` also names are
left to those clauses.
"""

from __future__ import annotations

from accls.analysis.findings import CARRIED_SCALAR_PRIVATIZED, Finding, finding
from accls.analysis.pragma_scope import clause_names
from accls.frontend import Directive, Loop, Ref

__all__ = ["private_array_findings"]

_PRIVATE = frozenset({"private"})
_COPIED = frozenset({"firstprivate", "lastprivate", "reduction", "linear"})


def _first_read(loop: Loop, name: str) -> Ref | None:
    """The read of `name` every iteration runs before any write of it, if any."""
    refs = sorted(
        (r for r in loop.refs if r.name == name), key=lambda r: r.span.start_byte
    )
    for ref in refs:
        if ref.is_write:
            return None
        in_body = ref.context[-1:] == (loop.id,) and ref.loops[-1:] == (loop.id,)
        if in_body and not ref.guarded and ref.span.start_byte > loop.body.start_byte:
            return ref
    return None


def private_array_findings(loop: Loop, directive: Directive) -> list[Finding]:
    """ACC112 for each `private` array of `directive` the loop reads before writing."""
    names = clause_names((directive,), _PRIVATE)
    names -= clause_names((directive,), _COPIED)
    out: list[Finding] = []
    for name in sorted(names):
        refs = [r for r in loop.refs if r.name == name]
        if not refs or not all(r.subscripts and not r.deref for r in refs):
            continue  # a scalar, or not an array the loop indexes
        read = _first_read(loop, name)
        if read is None:
            continue
        out.append(
            finding(
                CARRIED_SCALAR_PRIVATIZED,
                read.span,
                var=name,
                read=read.span.line,
                clause=f"`private({name})`",
                line=loop.line,
                fix=(
                    "each copy starts uninitialised: write every element the "
                    "iteration reads before reading it, or keep the loop serial"
                ),
            )
        )
    return out
