"""Fixed members a region's callees reach through a shared pointer, with the locks.

`producer(&q)` in one section calls `push(q)`, which updates `q->count` between
`omp_set_lock(&q->lock)` and `omp_unset_lock(&q->lock)`; `consumer(&q)` in the
other calls `finished(q)`, which reads `q->count` with no lock. Both are the
caller's `q.count`: the locked write and the unlocked read race, while a read
that takes `q->lock` too does not.

Followed, to a small depth: the file's functions that get the caller's shared
pointer (`&s`, or a pointer declared outside the region and never reassigned in
it) as a pointer parameter they never move, and pass it on unchanged. Each must
call no OpenMP routine but the lock calls and queries, have no OpenMP construct,
and take and drop locks only on its straight path (no lock call under a branch
or in a loop), each lock a member of the followed pointer (`&q->lock`). Members
count with constant subscripts or none (`q->count`, `q->hist[0]`), as the
caller's `q.count`; a member indexed by data names no element the caller can
compare.

This applies to the region's calls only when some function down one of them
takes such a lock; otherwise `member_writes` and `member_reads` follow them.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.mhp_member_writes import caller_base
from accls.frontend import Call, Function, Ref, Region, SourceFile

__all__ = ["locked_member_accesses"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_ADDRESS = re.compile(r"&\s*([A-Za-z_]\w*)")
_LOCK_ARG = re.compile(r"&\s*([A-Za-z_]\w*)\s*->\s*([A-Za-z_]\w*)")
_SET = frozenset({"omp_set_lock", "omp_set_nest_lock"})
_UNSET = frozenset({"omp_unset_lock", "omp_unset_nest_lock"})
_DEPTH = 4


class _Unfollowed(Exception):
    """A function down the call that the walk cannot follow."""


def locked_member_accesses(
    region: Region, fn: Function, source: SourceFile
) -> dict[int, list[tuple[Ref, frozenset[str]]]]:
    """Each call's members reached through shared pointers, with their locks.

    Keyed by the call's first byte; empty unless some call of the region takes
    a lock of a followed pointer. A call the walk cannot follow is left out.
    """
    start, end = region.span.start_byte, region.span.end_byte
    out: dict[int, list[tuple[Ref, frozenset[str]]]] = {}
    locked = False
    for call in fn.call_sites:
        callee = source.function(call.name)
        if not start <= call.span.start_byte < end or callee is None or callee is fn:
            continue
        found = _call_accesses(call, callee, fn, region, source)
        if found is not None:
            out[call.span.start_byte] = found[0]
            locked = locked or found[1]
    return out if locked else {}


def _call_accesses(
    call: Call, callee: Function, fn: Function, region: Region, source: SourceFile
) -> tuple[list[tuple[Ref, frozenset[str]]], bool] | None:
    """The call's member accesses and whether it locks; None when not followed."""
    bases: dict[str, str] = {}
    for k, arg in enumerate(call.args[: len(callee.params)]):
        param = callee.params[k]
        base = _base(arg, fn, region)
        if base is not None and param.pointers == 1 and not _moves(callee, param.name):
            bases[param.name] = base
    if not bases:
        return None
    out: list[tuple[Ref, frozenset[str]]] = []
    try:
        locked = _walk(callee, bases, source, 0, frozenset({callee.name}), out)
    except _Unfollowed:
        return None
    return out, locked


def _walk(
    f: Function,
    bases: dict[str, str],
    source: SourceFile,
    depth: int,
    seen: frozenset[str],
    out: list[tuple[Ref, frozenset[str]]],
) -> bool:
    """Add `f`'s member accesses and its callees'; True when one takes a lock."""
    locked = _accesses(f, bases, source, out)
    if depth + 1 >= _DEPTH:
        return locked
    for inner in f.call_sites:
        target = source.function(inner.name)
        if target is None or target.name in seen:
            continue
        passed: dict[str, str] = {}
        for k, arg in enumerate(inner.args[: len(target.params)]):
            param = target.params[k]
            if arg.strip() not in bases:
                continue
            if param.pointers != 1 or _moves(target, param.name):
                raise _Unfollowed  # the shared object goes where we do not follow
            passed[param.name] = bases[arg.strip()]
        if passed:
            seen_now = seen | {target.name}
            locked = _walk(target, passed, source, depth + 1, seen_now, out) or locked
    return locked


def _accesses(
    f: Function,
    bases: dict[str, str],
    source: SourceFile,
    out: list[tuple[Ref, frozenset[str]]],
) -> bool:
    """Add `f`'s fixed member accesses through `bases`; True when it locks one."""
    start, end = f.span.start_byte, f.span.end_byte
    if any(start <= c.span.start_byte < end for c in source.constructs):
        raise _Unfollowed
    branches = [b.span for b in source.branches if start <= b.span.start_byte < end]
    locks: list[tuple[int, int, bool, str]] = []
    for c in f.call_sites:
        if not c.name.startswith("omp_") or c.name.startswith("omp_get_"):
            continue
        if c.name not in _SET | _UNSET or len(c.args) != 1:
            raise _Unfollowed
        match = _LOCK_ARG.fullmatch(c.args[0].strip())
        if match is None or match.group(1) not in bases:
            raise _Unfollowed
        at = c.span.start_byte
        if any(s.start_byte <= at < s.end_byte for s in branches):
            raise _Unfollowed  # taken or dropped on some paths only
        name = bases[match.group(1)] + match.group(2)
        locks.append((at, c.span.end_byte, c.name in _SET, name))
    locks.sort()
    for ref in f.refs:
        renamed = _renamed(ref, bases)
        pos = ref.span.start_byte
        if renamed is None or any(s <= pos < e for s, e, _, _ in locks):
            continue
        held: set[str] = set()
        for at, _, taking, name in locks:
            if at >= pos:
                break
            (held.add if taking else held.discard)(f"lock:{name}")
        out.append((renamed, frozenset(held)))
    return bool(locks)


def _base(arg: str, fn: Function, region: Region) -> str | None:
    """`s.` for `&s` of a struct declared outside the region, else `caller_base`.

    `&s` names one object however the region's calls update `s` through it.
    """
    address = _ADDRESS.fullmatch(arg.strip())
    var = fn.lookup(address.group(1)) if address else None
    if var is None or var.span is None or var.pointers or var.dims:
        return caller_base(arg, fn, region)
    if region.span.start_byte <= var.span.start_byte < region.span.end_byte:
        return None  # each thread's own
    return f"{var.name}."


def _renamed(ref: Ref, bases: dict[str, str]) -> Ref | None:
    """`p->m` (constant subscripts) as the caller's `s.m`; None otherwise."""
    if not ref.member or ref.deref or "->" not in ref.name:
        return None
    head, _, rest = ref.name.partition("->")
    base = bases.get(head.strip())
    if base is None or not _NAME.fullmatch(rest.strip()):
        return None
    if any(s.poly is None or not s.poly.is_constant for s in ref.subscripts):
        return None
    return replace(ref, name=base + rest.strip())


def _moves(f: Function, name: str) -> bool:
    """True when `f` assigns its parameter `name` (then it points elsewhere)."""
    return any(r.name == name and r.is_write for r in f.refs)
