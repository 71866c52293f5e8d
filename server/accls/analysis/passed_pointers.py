"""A pointer handed only to callees that read through it and keep nothing.

`const Index_t *nodes = domain.nodelist(k); collect(domain, nodes, x);` takes
the address `&m_nodelist[8*k]` and passes it on; when `collect` (defined in
this file, one definition) only reads through that parameter, never writes
through it, copies it or hands it to another call, the call writes nothing
through the pointer, as if the loop read `nodes[j]` itself.
"""

from __future__ import annotations

import re

from accls.analysis.summaries import base_name, summarize
from accls.frontend import Call, Function, Loop, SourceFile

__all__ = ["callee_reads_only", "passed_read_only"]

_WORD = re.compile(r"[A-Za-z_]\w*")


def _plain(name: str, ref_name: str, subscripted: bool, deref: bool) -> bool:
    return ref_name == name and not subscripted and not deref


def callee_reads_only(
    call: Call, positions: list[int], source: SourceFile, pure: frozenset[str]
) -> bool:
    """Whether the callee only reads through its parameters at `positions`."""
    callee: Function | None = source.function(call.name)
    if callee is None or sum(f.name == call.name for f in source.functions) != 1:
        return False
    summary = summarize(call.name, source, pure)
    if summary is None or set(positions) & summary.writes:
        return False
    for index in positions:
        if index >= len(callee.params):
            return False
        name = callee.params[index].name
        for ref in callee.refs:
            # Its value used as such (copied, compared, stored, re-pointed).
            if base_name(ref.name) == name and _plain(
                name, ref.name, bool(ref.subscripts), ref.deref
            ):
                return False
        if any(local.sources and name in local.sources for local in callee.locals):
            return False
        for site in callee.call_sites:
            if any(name in _WORD.findall(arg) for arg in site.args):
                return False
    return True


def passed_read_only(
    pointer: str, loop: Loop, source: SourceFile, pure: frozenset[str]
) -> bool:
    """Whether every use of the pointer's own value in `loop` is such an argument."""
    for ref in loop.refs:
        if ref.is_write or not _plain(
            pointer, ref.name, bool(ref.subscripts), ref.deref
        ):
            continue
        start = ref.span.start_byte
        around = [c for c in loop.calls if c.span.start_byte <= start < c.span.end_byte]
        if not around:
            return False  # copied, stored, returned or compared outside a call
        for call in around:
            positions = [i for i, a in enumerate(call.args) if a == pointer]
            others = [
                a
                for i, a in enumerate(call.args)
                if i not in positions and pointer in _WORD.findall(a)
            ]
            if not positions or others:
                return False
            if not callee_reads_only(call, positions, source, pure):
                return False
    return True
