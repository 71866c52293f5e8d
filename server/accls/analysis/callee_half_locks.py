"""A loop's callee that writes a shared element without the lock it takes elsewhere.

`insert(t, key)` called from a parallel loop, with `if (t->head[b] == NULL)`
`{ t->head[b] = ...; return; }` before `omp_set_lock(&t->lock[b])` and the
accesses of `t->head[b]` after it: the callee takes the lock around the element
on one path only, so two iterations reaching the element (which the lock says
they do: it is indexed like the element) race on the unlocked path.

Followed: a function of the file, not the one the loop is in, whose OpenMP lock
calls all take an address (`&L`, `&p->l[k]`), none `omp_test_lock`, none in a
branch or a loop of the callee, and which has no `goto`; the loop itself takes
no lock and the call is in no `critical`, `atomic` or `ordered` construct.
Accesses are the callee's member refs through a pointer parameter given a
pointer the loop does not move (so every iteration reaches one object), with
subscripts whose names the callee sets at most once. A member written with no
lock held, and accessed elsewhere under a lock, races with the unlocked access
before the write (or with the locked one when there is none); an element only
when the lock is the element of a lock array of its subscripts, not derived
from the loop variable but through data: a global lock around `t->val[k]`,
`k` the iteration's own, excludes nothing and needs nothing.
"""

from __future__ import annotations

import re

from accls.analysis.findings import Finding
from accls.analysis.mhp_constructs import contains, first_word
from accls.analysis.pragma_scope import scope_of
from accls.analysis.races_exclusion import exclusion_finding
from accls.frontend import Call, Directive, Function, Loop, Ref, SourceFile

__all__ = ["callee_half_lock_findings"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_SET = frozenset({"omp_set_lock", "omp_set_nest_lock"})
_UNSET = frozenset({"omp_unset_lock", "omp_unset_nest_lock"})
_LOCKING = re.compile(r"omp_(?:set|test|unset)(?:_nest)?_lock")
_EXCLUDING = frozenset({"atomic", "critical", "ordered"})
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_SUBSCRIPT = re.compile(r"\[[^\[\]]*\]")


def _shared_params(
    call: Call, callee: Function, loop: Loop, private: frozenset[str]
) -> set[str]:
    """Pointer parameters given one object in every iteration, never moved."""
    moved = {r.name for r in loop.refs if r.is_write} | {v.name for v in loop.locals}
    out: set[str] = set()
    for param, arg in zip(callee.params, call.args, strict=False):
        text = arg.strip()
        if param.pointers != 1 or not _NAME.fullmatch(text):
            continue
        if text in moved or text in private:
            continue
        if any(r.name == param.name and r.is_write for r in callee.refs):
            continue
        out.add(param.name)
    return out


def _lock_steps(callee: Function, source: SourceFile) -> list[tuple[int, str, str]]:
    """(position, "set"/"unset", lock text) of the callee; empty when not plain."""
    start, end = callee.span.start_byte, callee.span.end_byte
    body = source.data[start:end]
    if re.search(rb"\bgoto\b", body):
        return []
    inner = [b.span for b in source.branches if start <= b.span.start_byte < end]
    steps: list[tuple[int, str, str]] = []
    for call in callee.call_sites:
        if not _LOCKING.fullmatch(call.name):
            continue
        pos = call.span.start_byte
        arg = "".join(call.args[0].split()) if len(call.args) == 1 else ""
        if call.name not in _SET | _UNSET or not arg.startswith("&"):
            return []  # a test lock, or a lock through a pointer
        if any(s.start_byte <= pos < s.end_byte for s in inner):
            return []  # taken or dropped on some paths only
        steps.append((pos, "set" if call.name in _SET else "unset", arg[1:]))
    return sorted(steps)


def _held(pos: int, steps: list[tuple[int, str, str]]) -> frozenset[str]:
    held: set[str] = set()
    for at, kind, lock in steps:
        if at >= pos:
            break
        if kind == "set":
            held.add(lock)
        else:
            held.discard(lock)
    return frozenset(held)


def _fixed_subscripts(ref: Ref, callee: Function) -> bool:
    """True when each name of the subscripts is set at most once in the callee."""
    names = {n for s in ref.subscripts for n in _NAME.findall(s.text)}
    return not any(s.indirect for s in ref.subscripts) and all(
        sum(1 for r in callee.refs if r.name == n and r.is_write) <= 1 for n in names
    )


def _shared_element(
    subs: tuple[str, ...],
    locks: frozenset[str],
    calls: list[Call],
    callee: Function,
    loop: Loop,
    source: SourceFile,
) -> bool:
    """True when iterations meet at the element, as its lock says they do.

    A member without subscripts is one for every iteration. An element must be
    held under an element of a lock array of the same subscripts (`t->lock[b]`
    around `t->head[b]`), which no call derives from the loop variable except
    through data (`words[i]`): `b = i` would give each iteration its own.
    """
    if not subs:
        return True
    if not any(_BRACKETS.findall(lock) == list(subs) for lock in locks):
        return False
    names = {n for sub in subs for n in _NAME.findall(sub)}
    body = source.data[callee.span.start_byte : callee.span.end_byte]
    for local in callee.locals:
        if local.name in names and local.span is not None:
            end = local.span.end_byte - callee.span.start_byte
            init = re.match(rb"\s*=([^;]*);", body[end:])
            names |= set(_NAME.findall(init.group(1).decode())) if init else set()
    at = [k for k, p in enumerate(callee.params) if p.name in names]
    for call in calls:
        for k in at:
            arg = _SUBSCRIPT.sub("", call.args[k]) if k < len(call.args) else ""
            if loop.var is None or loop.var in _NAME.findall(arg):
                return False
    return True


def callee_half_lock_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC121 when the callee writes an element unlocked that it elsewhere locks."""
    callee = source.function(name)
    calls = [c for c in loop.calls if c.name == name]
    if directive.dialect != "omp" or callee is None or not calls:
        return []
    if callee.span.start_byte <= loop.id < callee.span.end_byte:
        return []  # the loop is the callee's own
    if any(_LOCKING.fullmatch(c.name) for c in loop.calls):
        return []  # the loop's own locks: left to the loop's checks
    if any(
        contains(c, call.span.start_byte) and first_word(c) in _EXCLUDING
        for call in calls
        for c in source.constructs
    ):
        return []
    steps = _lock_steps(callee, source)
    if not steps:
        return []
    private = scope_of(loop, directive, source).private
    shared = [_shared_params(c, callee, loop, private) for c in calls]
    params = set.intersection(*shared)
    lock_spans = [c.span for c in callee.call_sites if _LOCKING.fullmatch(c.name)]
    groups: dict[tuple[str, tuple[str, ...]], list[tuple[Ref, frozenset[str]]]] = {}
    for ref in callee.refs:
        pos = ref.span.start_byte
        root = _NAME.match(ref.name)
        if not ref.member or root is None or root.group(0) not in params:
            continue
        if any(s.start_byte <= pos < s.end_byte for s in lock_spans):
            continue  # the lock object itself
        if not _fixed_subscripts(ref, callee):
            continue
        key = (ref.name, tuple("".join(s.text.split()) for s in ref.subscripts))
        groups.setdefault(key, []).append((ref, _held(pos, steps)))
    for (_, subs), refs in groups.items():
        locked = [
            (r, k)
            for r, k in refs
            if k and _shared_element(subs, k, calls, callee, loop, source)
        ]
        bare = [r for r, k in refs if not k]
        write = next((r for r in bare if r.is_write), None)
        if write is None or not locked:
            continue
        before = [r for r in bare if r.span.start_byte < write.span.start_byte]
        lock_ref, locks = locked[0]
        other = before[-1] if before else lock_ref
        lock = sorted(locks)[0]
        rule = (
            f"iterations run on different threads, and `{name}` holds `{lock}` "
            f"around `{lock_ref.name}` at line {lock_ref.span.line} but not at "
            f"line {write.span.line}"
        )
        fix = f"take `{lock}` in `{name}` before its first access of the element"
        return [exclusion_finding(write, other, write, directive, loop, rule, fix)]
    return []
