"""Two callees of a parallel loop that guard one object's member differently.

`deposit(a, x)` updates `a->balance` holding `a->lock`, the object's own lock,
and `charge_fee(a, r)` updates it in a `critical` (or with no exclusion): the
object's lock says that iterations meet at the object (else it would guard
nothing), and a thread in the `critical` does not hold the lock, so the two
updates race.

Followed: the loop takes no lock itself; each call is in no `critical`,
`atomic`, `ordered` ... of the loop and passes one plain name, a pointer the
loop does not move or one it sets once from data (`a = &accts[tx[t].acct]`,
the loop variable only in a subscript's subscript), to a pointer parameter
the callee never moves. The callees take and drop their locks only on their
straight paths, each through `&p->m` of a followed parameter, and call no
other OpenMP routine but queries. Members count without subscripts; an access
inside an `atomic` is left alone.
"""

from __future__ import annotations

import re

from accls.analysis.findings import Finding
from accls.analysis.mhp_constructs import contains, first_word
from accls.analysis.races_exclusion import exclusion_finding
from accls.frontend import Call, Directive, Function, Loop, Ref, SourceFile

__all__ = ["object_lock_findings"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_SET = frozenset({"omp_set_lock", "omp_set_nest_lock"})
_UNSET = frozenset({"omp_unset_lock", "omp_unset_nest_lock"})
_ELEMENT = re.compile(r"&\s*([A-Za-z_]\w*)\s*\[.*\]")
_LOCK_ARG = re.compile(r"&\s*([A-Za-z_]\w*)\s*->\s*([A-Za-z_]\w*)")
_EXCLUDING = frozenset({"atomic", "critical", "ordered", "single", "master", "masked"})

# (member access, the object's locks held there)
_Held = tuple[Ref, frozenset[str]]


def object_lock_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC121 when `name` locks a member that another callee reaches unlocked."""
    callee = source.function(name)
    if directive.dialect != "omp" or callee is None or not loop.var:
        return []
    if any(c.name.startswith("omp_") and "lock" in c.name for c in loop.calls):
        return []  # the loop's own locks: left to the loop's checks
    for call in loop.calls:
        if call.name != name or _excluded(loop, call, source):
            continue
        for param, arg in _followed(call, callee, loop, source):
            mine = _members(callee, param, source)
            locked = [(r, h) for r, h in mine or () if h]
            if not locked:
                continue
            own = _unlocked_in_same(mine or [], locked)
            if own is not None:
                one, two, lock = own
                rule = (
                    f"iterations run on different threads and may reach one object "
                    f"(`{name}` locks it: `{param}->{lock}`), but `{name}` does not "
                    f"hold the lock around `{two.name}` at line {two.span.line}"
                )
                fix = f"take `{param}->{lock}` around line {two.span.line} too"
                at = two if two.is_write else one
                return [exclusion_finding(at, one, two, directive, loop, rule, fix)]
            for other_call in loop.calls:
                found = _other(other_call, arg, locked, loop, source, name)
                if found is not None:
                    one, two, lock = found
                    rule = (
                        f"iterations run on different threads, and `{name}` holds "
                        f"`{lock}` around `{one.name}` at line {one.span.line} but "
                        f"`{other_call.name}` does not at line {two.span.line}"
                    )
                    fix = f"take `{lock}` in `{other_call.name}` around the access"
                    at = one if one.is_write else two
                    return [exclusion_finding(at, one, two, directive, loop, rule, fix)]
    return []


def _other(
    call: Call,
    arg: str,
    locked: list[_Held],
    loop: Loop,
    source: SourceFile,
    name: str,
) -> tuple[Ref, Ref, str] | None:
    """(locked access, unlocked access, lock) when `call` reaches one unlocked."""
    target = source.function(call.name)
    if call.name == name or target is None or _excluded(loop, call, source):
        return None
    for param, passed in _followed(call, target, loop, source):
        if passed != arg:
            continue
        for ref, held in _members(target, param, source) or ():
            field = ref.name.partition("->")[2]
            for mine, locks in locked:
                if mine.name.partition("->")[2] != field:
                    continue
                lock = sorted(locks)[0]
                if lock in held or not (ref.is_write or mine.is_write):
                    continue
                element = arg.startswith("&")  # `&st[c]`: the lock is `st[c].lock`
                return mine, ref, f"{arg[1:]}.{lock}" if element else f"{arg}->{lock}"
    return None


def _unlocked_in_same(
    mine: list[_Held], locked: list[_Held]
) -> tuple[Ref, Ref, str] | None:
    """(an access, an unlocked access, a lock) of one callee that race.

    The callee's own lock says iterations meet at the object: a member it
    writes without the lock races with that write in another iteration, and
    one it reads without the lock with a locked write of that member.
    """
    lock = sorted(locked[0][1])[0]
    for ref, held in mine:
        if held:
            continue
        if ref.is_write:
            return ref, ref, lock
        field = ref.name.partition("->")[2]
        for other, locks in locked:
            if other.is_write and other.name.partition("->")[2] == field:
                return other, ref, sorted(locks)[0]
    return None


def _followed(
    call: Call, callee: Function, loop: Loop, source: SourceFile
) -> list[tuple[str, str]]:
    """(parameter, argument) pairs of pointers that reach one object per value."""
    out: list[tuple[str, str]] = []
    for param, arg in zip(callee.params, call.args, strict=False):
        text = arg.strip()
        if param.pointers != 1:
            continue
        if any(r.name == param.name and r.is_write for r in callee.refs):
            continue  # the callee moves its pointer
        element = _ELEMENT.fullmatch(text)
        if element is not None:
            # `&st[cls[k]]`: an element the data choose, of an array the loop keeps
            if _steady(element.group(1), loop) and _by_data(text, loop.var):
                out.append((param.name, "".join(text.split())))
        elif _NAME.fullmatch(text) and _chosen_by_data(text, loop, source):
            out.append((param.name, text))
    return out


def _steady(name: str, loop: Loop) -> bool:
    """True when the loop neither declares nor assigns `name`."""
    if any(v.name == name for v in loop.locals):
        return False
    return not any(
        r.name == name and r.is_write and not r.subscripts for r in loop.refs
    )


def _by_data(text: str, var: str | None) -> bool:
    """True when `var` appears in `text` only inside a subscript's subscript."""
    if var is None:
        return False
    shallow: list[str] = []
    depth = 0
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        shallow.append(ch if depth <= 1 else " ")
    return var not in _NAME.findall("".join(shallow))


def _chosen_by_data(name: str, loop: Loop, source: SourceFile) -> bool:
    """True when `name` is not moved by the loop, or set once not from its variable."""
    sets = [r for r in loop.refs if r.name == name and r.is_write and not r.deref]
    if not sets:
        return not any(v.name == name for v in loop.locals)
    if len(sets) != 1 or not any(v.name == name for v in loop.locals):
        return False
    body = source.data[loop.body.start_byte : loop.body.end_byte].decode()
    init = re.search(rf"\b{re.escape(name)}\s*=\s*([^;]*);", body)
    if init is None:
        return False
    # Only inside a subscript's subscript (`accts[tx[t].acct]`) is the object
    # chosen by data; `&cells[t]` and `ptrs[t]` follow the loop variable.
    return _by_data(init.group(1), loop.var)


def _members(f: Function, param: str, source: SourceFile) -> list[_Held] | None:
    """`param->m` accesses of `f` with the locks of `param` held; None if unplain."""
    start, end = f.span.start_byte, f.span.end_byte
    branches = [b.span for b in source.branches if start <= b.span.start_byte < end]
    steps: list[tuple[int, int, bool, str]] = []
    for c in f.call_sites:
        if not c.name.startswith("omp_") or c.name.startswith("omp_get_"):
            continue
        match = _LOCK_ARG.fullmatch(c.args[0].strip()) if len(c.args) == 1 else None
        if c.name not in _SET | _UNSET or match is None:
            return None
        at = c.span.start_byte
        if any(s.start_byte <= at < s.end_byte for s in branches):
            return None  # taken or dropped on some paths only
        if match.group(1) == param:
            steps.append((at, c.span.end_byte, c.name in _SET, match.group(2)))
    steps.sort()
    atomics = [
        c.span
        for c in source.constructs
        if start <= c.span.start_byte < end and first_word(c) == "atomic"
    ]
    out: list[_Held] = []
    for ref in f.refs:
        pos = ref.span.start_byte
        head, _, field = ref.name.partition("->")
        if not ref.member or ref.deref or ref.subscripts or head != param:
            continue
        if not _NAME.fullmatch(field) or any(s <= pos < e for s, e, _, _ in steps):
            continue
        if any(s.start_byte <= pos < s.end_byte for s in atomics):
            continue
        held: set[str] = set()
        for at, _, taking, lock in steps:
            if at >= pos:
                break
            (held.add if taking else held.discard)(lock)
        out.append((ref, frozenset(held)))
    return out


def _excluded(loop: Loop, call: Call, source: SourceFile) -> bool:
    """True when the call sits in a `critical`, `atomic`, ... of the loop."""
    pos = call.span.start_byte
    return any(
        first_word(c) in _EXCLUDING
        and loop.body.start_byte <= c.span.start_byte
        and contains(c, pos)
        for c in source.constructs
    )
