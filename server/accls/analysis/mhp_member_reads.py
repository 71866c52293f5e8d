"""A callee's reads of fixed members through a pointer the caller shares.

`advance(s)` called by every thread of a region, with `void advance(solver_t *p)`
running `#pragma omp for nowait` over `p->unew[i] = ... p->dt ...`, reads the
caller's `s->dt` as soon as each thread enters it: nothing in the callee
synchronizes first. A `masked` (or `single nowait`) store of `s->dt` just before
the call, with no barrier between, then races with those reads. Only reads that
run before any synchronization of the callee are placed at the call: no pragma of
the callee precedes them but that of a worksharing loop holding them (entering a
loop does not wait for other threads), no `if` arm holds them, and the callee
calls no function of the file (which could hold a barrier). Members with constant
subscripts (or none) only, as for the writes (`mhp_member_writes`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.analysis.mhp_deep_members import MEMBER_PATH
from accls.analysis.mhp_member_writes import caller_base
from accls.frontend import Call, Function, Ref, Region, SourceFile

__all__ = ["member_reads"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_PRAGMA = re.compile(rb"#\s*pragma\b")
_ENTERED = frozenset({"for", "simd", "loop"})  # no wait on entry


def _unsynchronized(ref: Ref, callee: Function, source: SourceFile) -> bool:
    """True when the callee reaches `ref` before any barrier, exclusion or branch."""
    start, pos = callee.span.start_byte, ref.span.start_byte
    holders = {
        pragma_at(c)
        for c in source.constructs
        if start <= pragma_at(c) < pos
        and contains(c, pos)
        and first_word(c) in _ENTERED
    }
    if any(
        m.start() + start not in holders
        for m in _PRAGMA.finditer(source.data[start:pos])
    ):
        return False
    return not any(
        b.kind != "loop" and start <= b.span.start_byte <= pos < b.span.end_byte
        for b in source.branches
    )


def member_reads(
    call: Call, callee: Function, fn: Function, region: Region, source: SourceFile
) -> list[Ref]:
    """The callee's first fixed member reads through pointer parameters, renamed."""
    if any(source.function(name) is not None for name in callee.calls):
        return []
    out: list[Ref] = []
    for k, arg in enumerate(call.args[: len(callee.params)]):
        param = callee.params[k]
        if param.pointers != 1:
            continue
        base = caller_base(arg, fn, region)
        if base is None:
            continue
        if any(r.name == param.name and r.is_write for r in callee.refs):
            continue  # the callee moves its pointer
        head = f"{param.name}->"
        for ref in callee.refs:
            if ref.is_write or not ref.member or not ref.name.startswith(head):
                continue
            rest = ref.name[len(head) :]
            if not MEMBER_PATH.fullmatch(rest) or ref.deref or ref.atomic:
                continue  # `p->a.b`, `*p->q`: not followed
            if any(s.poly is None or not s.poly.is_constant for s in ref.subscripts):
                continue
            if _unsynchronized(ref, callee, source):
                out.append(replace(ref, name=base + rest))
    return out
