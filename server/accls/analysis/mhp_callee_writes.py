"""Writes to shared state made by the functions that a parallel region calls."""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.callee_critical_names import (
    critical_names_at,
    critical_state_writes,
)
from accls.analysis.mhp_callee_atomics import callee_atomic_held
from accls.analysis.mhp_callee_elements import fixed_element_writes
from accls.analysis.mhp_callee_locked_members import locked_member_accesses
from accls.analysis.mhp_callees import hidden_state, hidden_write, locked_state_writes
from accls.analysis.mhp_env import Environment
from accls.analysis.mhp_loop_locks import param_locks
from accls.analysis.mhp_member_reads import member_reads
from accls.analysis.mhp_member_writes import member_writes
from accls.frontend import Call, Function, Ref, Region, SourceFile

__all__ = ["callee_state"]


_ADDRESS_ARG = re.compile(r"&\s*([A-Za-z_]\w*)")


def callee_state(
    region: Region, fn: Function, source: SourceFile, env: Environment
) -> list[tuple[Call, Ref, frozenset[str], bool]]:
    """Writes of `static` locals and globals by functions called in the region.

    With them, the fixed members a callee reads through the caller's shared
    pointer before it synchronizes (`mhp_member_reads`), or, when a call down
    the region takes a lock of a shared object, every fixed member access each
    call reaches through it with its locks (`mhp_callee_locked_members`).

    Fixed elements of arrays (`a[0]`) and the writes of deeper calls included.

    Each comes with the locks the callee holds around it, and whether it is a
    write through a `&name` argument (renamed to the caller's `name`).
    """
    start, end = region.span.start_byte, region.span.end_byte
    out: list[tuple[Call, Ref, frozenset[str], bool]] = []
    locked = locked_member_accesses(region, fn, source)
    for call in fn.call_sites:
        if not start <= call.span.start_byte < end:
            continue
        callee = source.function(call.name)
        state = hidden_state(call.name, source) if callee is None else None
        if state is not None:
            out.append((call, hidden_write(call, state), frozenset(), False))
        if callee is fn:  # a recursion: the members it writes, deep ones too
            own = member_writes(call, callee, fn, region, source)
            out.extend((call, ref, frozenset(), False) for ref in own)
        if callee is None or callee is fn:
            continue
        writes = locked_state_writes(callee, source, env.threadprivate)
        out.extend((call, ref, held, False) for ref, held in writes)
        out.extend(
            (call, ref, held, False)
            for ref, held in critical_state_writes(callee, source, env.threadprivate)
        )
        fixed = fixed_element_writes(call, callee, source, env.threadprivate)
        out.extend((call, ref, held, False) for ref, held in fixed)
        out.extend(
            (call, ref, held, True) for ref, held in _through(call, callee, source)
        )
        reached = locked.get(call.span.start_byte)
        if reached is not None:
            out.extend((call, ref, held, False) for ref, held in reached)
            continue
        for ref in member_writes(call, callee, fn, region, source):
            inside = critical_names_at(callee, ref, source)
            if inside is None:  # `atomic` counts, marked; other exclusion does not
                inside = callee_atomic_held(callee, ref, source)
            if inside is not None:
                out.append((call, ref, inside, False))
        reads = member_reads(call, callee, fn, region, source)
        out.extend((call, ref, frozenset(), False) for ref in reads)
    return out


def _through(
    call: Call, callee: Function, source: SourceFile
) -> list[tuple[Ref, frozenset[str]]]:
    """Writes of `*p` in the callee, for each `&name` the call gives `p`."""
    out: list[tuple[Ref, frozenset[str]]] = []
    for k, arg in enumerate(call.args[: len(callee.params)]):
        match = _ADDRESS_ARG.fullmatch(arg.strip())
        if match is None or callee.params[k].pointers != 1:
            continue
        param = callee.params[k].name
        writes = [
            r
            for r in callee.refs
            if r.name == param
            and r.is_write
            and (r.deref or [s.text.strip() for s in r.subscripts] == ["0"])
        ]
        locks = param_locks(callee, k, call, source) if writes else None
        if locks is None:
            continue
        held = frozenset(f"lock:{name}" for name in locks)
        for ref in writes:
            inside = critical_names_at(callee, ref, source)
            if inside is None:
                continue  # `atomic`, `single`, `master`, `ordered`: not followed
            plain = replace(ref, name=match.group(1), deref=False, subscripts=())
            out.append((plain, held | inside))
    return out
