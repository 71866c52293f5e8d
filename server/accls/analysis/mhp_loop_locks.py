"""Which names a worksharing loop's OpenMP locks protect, and which half of the time."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from accls.analysis.findings import Finding
from accls.analysis.mhp_locks import LockTable, lock_table
from accls.analysis.races_exclusion import exclusion_finding
from accls.analysis.races_index import loop_range, value_at
from accls.frontend import Call, Directive, Function, Loop, Ref, SourceFile

__all__ = [
    "NO_LOCKS",
    "LoopLocks",
    "callee_guarded",
    "half_locked_findings",
    "loop_locks",
    "param_locks",
]

_NAME = re.compile(r"[A-Za-z_]\w*")
_ADDRESS_OF = re.compile(r"&\s*([A-Za-z_]\w*)")
# `lock:l[e]`, `lock:acct[e].lock`: one element of a lock array, or its field
_LOCK_ELEMENT = re.compile(r"lock:[A-Za-z_]\w*\[(.+)\](?:\s*(?:\.|->)\s*\w+)*")
_SET_CALLS = frozenset({"omp_set_lock", "omp_set_nest_lock"})
_LOCKING = _SET_CALLS | {
    "omp_unset_lock",
    "omp_unset_nest_lock",
    "omp_test_lock",
    "omp_test_nest_lock",
}


@dataclass(frozen=True, slots=True)
class LoopLocks:
    """`guarded`: every reference holds one lock; `half`: (unlocked, locked) refs."""

    guarded: frozenset[str]
    half: tuple[tuple[Ref, Ref, str], ...]  # (unlocked, locked, the lock)
    # (ref, other ref, why): one element guarded by two elements of a lock array
    clashes: tuple[tuple[Ref, Ref, str], ...] = ()


NO_LOCKS = LoopLocks(frozenset(), ())
"""A loop that takes no lock."""


def loop_locks(loop: Loop, source: SourceFile) -> LoopLocks | None:
    """What the loop's lock calls protect; None when they cannot be followed.

    They cannot be followed with a lock passed through a pointer, `omp_test_lock`,
    a lock set or released in a branch the access is not in, or a loop that is not
    the statement of one construct. The lock objects themselves count as guarded.
    """
    fn = source.function(loop.function) if loop.function else None
    construct = next(
        (c for c in source.constructs if c.span.start_byte == loop.id), None
    )
    if fn is None or construct is None:
        return None
    table = lock_table(construct, fn, source, (), indexed=True)
    if not table.calls:
        return None  # pthread locks, or locks the table does not see
    own = {x.var for x in loop.walk() if x.var} | {
        v.name for x in loop.walk() for v in x.locals
    }
    # A lock declared in the body is a new lock each iteration: it excludes nothing.
    calls = tuple(c for c in table.calls if _base(c.lock) not in own)
    if not calls:
        return NO_LOCKS
    table = replace(table, calls=calls)
    held: dict[str, list[tuple[Ref, frozenset[str]]]] = {}
    for ref in loop.refs:
        pos = ref.span.start_byte
        if table.in_call(pos) or ref.name in own:
            continue  # the `&lock` argument, or a name each iteration has
        sure, partial, doubt = table.held(pos, -1)
        if doubt or partial or _unlocked_aside(table, pos):
            return None  # a branch takes or drops a lock around this access
        held.setdefault(ref.name, []).append((ref, sure))
    guarded = {c.lock for c in table.calls if c.lock}
    # the lock array itself: `l` of `l[i % 4]`
    guarded |= {
        c.lock.split("[")[0] for c in table.calls if c.lock.split("[")[0].isidentifier()
    }
    half: list[tuple[Ref, Ref, str]] = []
    for name, refs in held.items():
        common = frozenset.intersection(*(locks for _, locks in refs))
        if common:
            guarded.add(name)
            continue
        bare = [r for r, locks in refs if not locks]
        cover = [(r, locks) for r, locks in refs if locks]
        if not bare or not cover or not any(r.is_write for r, _ in refs):
            continue
        plain = next((r for r in bare if r.is_write), bare[0])
        other, locks = next(((r, k) for r, k in cover if r.is_write), cover[0])
        half.append((plain, other, sorted(locks)[0].removeprefix("lock:")))
    clashes = [
        found
        for refs in held.values()
        if (found := _element_clash(refs, loop, source)) is not None
    ]
    return LoopLocks(frozenset(guarded), tuple(half), tuple(clashes))


def _element_clash(
    refs: list[tuple[Ref, frozenset[str]]], loop: Loop, source: SourceFile
) -> tuple[Ref, Ref, str] | None:
    """Two iterations that touch one element under two elements of one lock array.

    Each reference must hold one lock `L[e]` and have one subscript, both
    built from the loop variable, literals and macros, over a loop of literal
    bounds: `h[i % 4]` under `l[i % 8]` meets at `h[0]` under `l[0]` and `l[4]`.
    """
    span = loop_range(loop, source)
    if span is None or loop.var is None or not any(r.is_write for r, _ in refs):
        return None
    seen: dict[int, tuple[Ref, int]] = {}
    defined = _iteration_values(loop, source)
    for ref, locks in refs:
        arrays = [m for k in locks if (m := _LOCK_ELEMENT.fullmatch(k))]
        if len(ref.subscripts) != 1 or len(arrays) != 1:
            return None
        lock = arrays[0].group(0).removeprefix("lock:")
        index = defined(arrays[0].group(1))
        subscript = defined(ref.subscripts[0].text)
        for k in span:
            at = value_at(subscript, loop.var, k, source)
            key = value_at(index, loop.var, k, source)
            if at is None or key is None:
                return None
            first = seen.setdefault(at, (ref, key))
            if first[1] != key and (ref.is_write or first[0].is_write):
                why = (
                    f"element {at} of `{ref.name}` is taken under `{lock}` as "
                    f"{first[1]} and as {key}"
                )
                return first[0], ref, why
    return None


def _base(lock: str) -> str:
    """The variable a lock expression starts with: `l` of `l[i % 4]`."""
    match = _NAME.match(lock)
    return match.group(0) if match else ""


def half_locked_findings(
    loop: Loop, directive: Directive, locks: LoopLocks, private: frozenset[str]
) -> list[Finding]:
    """ACC121 for each shared name the loop updates both with and without a lock.

    And for each element two iterations take under different elements of a lock
    array.
    """
    out: list[Finding] = []
    for one, other, why in locks.clashes:
        if one.name in private:
            continue
        rule = f"iterations run on different threads, and {why}"
        fix = "index the lock array the way the data is indexed"
        at = one if one.is_write else other
        out.append(exclusion_finding(at, one, other, directive, loop, rule, fix))
    for plain, other, lock in locks.half:
        if plain.name in private:
            continue
        rule = (
            f"iterations run on different threads, and the lock `{lock}` "
            f"is held at line {other.span.line} but not at line {plain.span.line}"
        )
        fix = (
            f"take `{lock}` around the access at line {plain.span.line} "
            "too, or make every access `atomic`"
        )
        out.append(exclusion_finding(plain, plain, other, directive, loop, rule, fix))
    return out


def _unlocked_aside(table: LockTable, pos: int) -> bool:
    """True when a branch `pos` is not in releases a lock taken on the way to `pos`."""
    around = {g.start_byte for g in table.guards if g.start_byte <= pos < g.end_byte}
    for drop in table.calls:
        if drop.kind != "unset" or drop.pos >= pos or drop.guards <= around:
            continue
        if any(
            take.kind == "set"
            and take.lock == drop.lock
            and take.pos < drop.pos
            and take.guards <= around
            for take in table.calls
        ):
            return True
    return False


def callee_guarded(loop: Loop, source: SourceFile) -> frozenset[str]:
    """Names the loop passes as `&name` only, to callees that lock around them.

    A callee parameter counts as guarded when it is only handed to the OpenMP lock
    routines (the lock object itself), or when every use of it holds a lock that
    another parameter names, given `&L` at the call; every call must give one `L`.
    """
    uses: dict[str, list[tuple[Function, int, Call]]] = {}
    for call in loop.calls:
        callee = source.function(call.name)
        if callee is None or callee.span.start_byte <= loop.id < callee.span.end_byte:
            continue
        for k, arg in enumerate(call.args[: len(callee.params)]):
            match = _ADDRESS_OF.fullmatch(arg.strip())
            if match is not None:
                uses.setdefault(match.group(1), []).append((callee, k, call))
    out: set[str] = set()
    for name, sites in uses.items():
        inside = [
            r
            for r in loop.refs
            if r.name == name
            and not any(
                c.span.start_byte <= r.span.start_byte < c.span.end_byte
                for _, _, c in sites
            )
        ]
        if inside:
            continue  # also used directly in the loop: the loop's checks decide
        locks = {_param_lock(callee, k, call, source) for callee, k, call in sites}
        if len(locks) == 1 and None not in locks:
            out.add(name)
    return frozenset(out)


def _param_lock(callee: Function, k: int, call: Call, source: SourceFile) -> str | None:
    """The lock the caller's objects hold at every use of parameter `k`.

    "" when the parameter is a lock object handed to the lock routines only.
    """
    if _lock_object(callee, k):
        return ""
    given = param_locks(callee, k, call, source)
    return sorted(given)[0] if given else None


def _lock_calls(callee: Function) -> list[Call]:
    return sorted(
        (c for c in callee.call_sites if c.name in _LOCKING),
        key=lambda c: c.span.start_byte,
    )


def _lock_object(callee: Function, k: int) -> bool:
    """True when parameter `k` is only handed to the OpenMP lock routines."""
    param = callee.params[k].name
    calls = _lock_calls(callee)
    refs = [r for r in callee.refs if r.name == param]
    return bool(refs) and all(
        any(c.span.start_byte <= r.span.start_byte < c.span.end_byte for c in calls)
        for r in refs
    )


def param_locks(
    callee: Function, k: int, call: Call, source: SourceFile
) -> frozenset[str] | None:
    """The caller's locks (`L` of `&L`) held at every use of parameter `k`.

    Empty when none is; None when the lock calls cannot be followed (a test
    lock, a lock taken or dropped under a branch) or `k` is a lock object.
    """
    param = callee.params[k].name
    lock_calls = _lock_calls(callee)
    refs = [r for r in callee.refs if r.name == param]
    if not refs or _lock_object(callee, k):
        return None
    inside = [
        any(
            c.span.start_byte <= r.span.start_byte < c.span.end_byte for c in lock_calls
        )
        for r in refs
    ]
    if any(inside) or any(c.name.startswith("omp_test") for c in lock_calls):
        return None
    branches = [b.span for b in source.branches if b.kind in ("if", "else")]
    held: set[str] = set()
    for ref in refs:
        pos = ref.span.start_byte
        around = {b.start_byte for b in branches if b.start_byte <= pos < b.end_byte}
        state: set[str] = set()
        for c in lock_calls:
            if c.span.start_byte >= pos:
                break
            arg = "".join(c.args[0].split()) if c.args else ""
            guards = {
                b.start_byte
                for b in branches
                if b.start_byte <= c.span.start_byte < b.end_byte
            }
            if not guards <= around:
                return None  # taken or dropped on some paths only
            if c.name in _SET_CALLS:
                state.add(arg)
            else:
                state.discard(arg)
        held = state if ref is refs[0] else held & state
    names = [p.name for p in callee.params]
    return frozenset(
        found
        for h in held
        if h in names and names.index(h) < len(call.args)
        if (found := _address(call.args[names.index(h)])) is not None
    )


def _iteration_values(loop: Loop, source: SourceFile) -> Callable[[str], str]:
    """A rewrite of subscripts with the locals each iteration defines once.

    `int to = (i + 1) % A;` in the body, never written again: `acct[to]` reads
    as `acct[((i + 1) % A)]`.
    """
    body = source.data[loop.body.start_byte : loop.body.end_byte].decode(
        "utf-8", "replace"
    )
    values: dict[str, str] = {}
    for x in loop.walk():
        for var in x.locals:
            writes = [r for r in loop.refs if r.name == var.name and r.is_write]
            found = re.search(rf"\b{re.escape(var.name)}\s*=\s*([^,;=]+)[,;]", body)
            if len(writes) == 1 and found is not None:
                values[var.name] = found.group(1).strip()

    def expand(text: str) -> str:
        return _NAME.sub(
            lambda m: f"({values[m[0]]})" if m[0] in values else m[0], text
        )

    return expand


def _address(arg: str) -> str | None:
    match = _ADDRESS_OF.fullmatch(arg.strip())
    return match.group(1) if match else None
