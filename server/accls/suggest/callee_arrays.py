"""Whole arrays an offloaded loop hands to the functions it calls.

`put(out, i, in[i])` reaches `out` only inside `put()`: the loop's own
references never name it, so its data clauses would not move it, and the
device routine would follow a host address. When the argument is an array
whose whole extent the clause can name (a declared array, or a local pointer
set once from `malloc`) and the loop does not also index it itself, the
clauses move all of it, with the direction the callee's summary gives: `copy`
when the callee writes through that parameter (elements it leaves alone come
back unchanged), `copyin` when it only reads.
"""

from __future__ import annotations

import re

from accls.analysis import FileAnalysis
from accls.analysis.aliasing import array_decl
from accls.analysis.array_sections import ArrayUse
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.summaries import summarize
from accls.frontend import Call, Loop
from accls.suggest.allocated_extents import allocated_section

__all__ = ["callee_array_uses", "callee_mapped_names"]

_NAME = re.compile(r"[A-Za-z_]\w*")


def callee_array_uses(loop: Loop, analysis: FileAnalysis) -> tuple[ArrayUse, ...]:
    """One use per whole array passed to a summarised callee and not indexed here."""
    key = ("callee array uses", loop.id)
    cached = analysis.shared.get(key)
    if isinstance(cached, tuple):
        return cached
    source = analysis.source
    fn = source.function(loop.function)
    own = {r.name.split("[", 1)[0].strip() for r in loop.refs if r.is_write}
    own |= {r.name for r in loop.refs if r.subscripts or r.deref}
    local = {v.name for inner in loop.walk() for v in inner.locals}
    found: dict[str, tuple[bool, bool, bool]] = {}
    for call in loop.calls:
        if source.function(call.name) is None:
            continue  # the library's or another file's: refused elsewhere
        summary = summarize(call.name, source, PURE_FUNCTIONS, None, analysis.program)
        if summary is None:
            continue
        for k, arg in enumerate(call.args):
            name = arg.strip()
            if k not in summary.reads | summary.writes or not _NAME.fullmatch(name):
                continue
            if name in own or name in local:
                continue
            decl = array_decl(name, fn, source.globals)
            if decl is None:
                continue
            static = bool(decl.dims) and not decl.pointers
            if not static and allocated_section(name, decl, fn) is None:
                continue
            read, written, _ = found.get(name, (False, False, static))
            found[name] = (
                read or k in summary.reads,
                written or k in summary.writes,
                static,
            )
    uses = tuple(
        ArrayUse(
            name=name,
            read=read or written,
            written=written,
            read_first=True,
            section=None,
            exact_cover=False,
            known=static,
        )
        for name, (read, written, static) in sorted(found.items())
    )
    analysis.shared[key] = uses
    return uses


def callee_mapped_names(
    call: Call, loop: Loop, analysis: FileAnalysis
) -> frozenset[str]:
    """The arguments of `call` whose memory the loop's data clauses move.

    Those `callee_array_uses` maps whole, and those the analysis already turned
    into the loop's own element accesses (`put(out, i)` writing only `out[i]`
    is recorded as the loop's `out[i]` inside the call), which the clauses
    move like any other.
    """
    start, end = call.span.start_byte, call.span.end_byte
    inside = {
        r.name for r in loop.refs if r.subscripts and start <= r.span.start_byte < end
    }
    whole = {use.name for use in callee_array_uses(loop, analysis)}
    args = {arg.strip() for arg in call.args}
    return frozenset(args & (whole | inside))
