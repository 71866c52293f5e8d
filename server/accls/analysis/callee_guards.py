"""A callee's `atomic`, `critical` and conditions, kept on the accesses it maps.

`k(t, i)` with `static void k(double *p, int n) { #pragma omp atomic  p[0] += 1; }`
updates `t[0]` in the caller's loop (element_arguments, row_arguments), and
that update is atomic: two iterations that both run it do not race, as with the
loop's own `#pragma omp atomic` write; so is an access while the callee holds
one global `omp_lock_t`, against another under the same lock. A callee access
under a condition (`if (n == 3) p[0] += 1`) runs in the iterations that meet
it, which may be one: the caller's loop cannot prove the dependence, only
suspect it.

The dependence test runs on the nest with the callee's accesses mapped in; the
check reads the front end's loop, where the argument is a plain read. These
functions give the check what the callee says of the argument.
"""

from __future__ import annotations

import re

from accls.analysis.model import Dependence
from accls.frontend import Call, Function, Loop, Ref, SourceFile, Span

__all__ = ["callee_atomic", "callee_branch", "callee_protection"]

_DEPTH = 4  # callees passing the pointer on, at most
_SET = frozenset({"omp_set_lock", "omp_set_nest_lock"})
_UNSET = frozenset({"omp_unset_lock", "omp_unset_nest_lock"})
_LOCK = re.compile(r"&\s*([A-Za-z_]\w*)")


def _held_lock(ref: Ref, fn: Function, source: SourceFile) -> str:
    """`lock:G` when the callee holds the global lock `G` at `ref`, else "".

    Only `omp_set_lock(&G)`/`omp_unset_lock(&G)` of a global, none under a
    branch: the locks held at `ref` are those set before it and not unset.
    """
    calls = sorted(
        (c for c in fn.call_sites if "lock" in c.name),
        key=lambda c: c.span.start_byte,
    )
    arms = [b.span for b in source.branches if b.kind in ("if", "else")]
    globals_ = {g.name for g in source.globals}
    held: set[str] = set()
    for call in calls:
        found = _LOCK.fullmatch(call.args[0].strip()) if call.args else None
        if call.name not in _SET | _UNSET or found is None:
            return ""  # a test lock, pthreads, a lock we cannot name
        if found[1] not in globals_ or any(
            a.start_byte <= call.span.start_byte < a.end_byte for a in arms
        ):
            return ""  # one lock per call, or taken on some paths only
        if call.span.start_byte < ref.span.start_byte:
            if call.name in _SET:
                held.add(found[1])
            else:
                held.discard(found[1])
    return f"lock:{min(held)}" if len(held) == 1 else ""


def callee_protection(
    name: str, index: int, source: SourceFile, depth: int = _DEPTH
) -> tuple[str, bool]:
    """How the callee `name` guards its accesses through parameter `index`.

    The dialect ("omp"/"acc") of the `atomic` or `critical` that holds every one
    of them ("" when one is bare, two differ, or the pointer is copied), and
    whether one sits under a condition of the callee. The callees the parameter
    is passed on to count alike.
    """
    fn = source.function(name)
    if fn is None or index >= len(fn.params) or depth <= 0:
        return "", False
    if sum(f.name == name for f in source.functions) != 1:
        return "", False  # overloads: which body runs is unknown
    param = fn.params[index].name
    refs = [r for r in fn.refs if r.name == param]
    if any(r.is_write and not (r.subscripts or r.deref) for r in refs):
        return "", False  # re-pointed: its accesses reach other memory
    if any(r.escapes or r.copies or r.into for r in refs):
        return "", False  # copied: another name accesses it
    through = [r for r in refs if r.subscripts or r.deref]
    kinds = {r.atomic or _held_lock(r, fn, source) for r in through}
    branch = any(r.guarded or any(c < 0 for c in r.context) for r in through)
    # `if (n > 0) return; p[0] = n;`: a `return` before it, the access may not run.
    early = [e.span.start_byte for e in fn.exits if e.kind.value in ("return", "goto")]
    branch = branch or any(x < r.span.start_byte for x in early for r in through)
    for call in fn.call_sites:
        for at, arg in enumerate(call.args):
            if arg.strip() == param:
                if call.name == name:
                    return "", False  # recursion
                kind, inner = callee_protection(call.name, at, source, depth - 1)
                kinds.add(kind)
                branch = branch or inner
    if not kinds:
        return "", False
    return (next(iter(kinds)) if len(kinds) == 1 else ""), branch


def _argument(span: Span, refs: dict[Span, Ref], loop: Loop) -> tuple[Call, int] | None:
    """The call and argument position of the plain argument `t` at `span`."""
    ref = refs.get(span)
    if ref is None or ref.subscripts or ref.deref or ref.member:
        return None
    for call in loop.calls:
        if call.span.start_byte <= span.start_byte < call.span.end_byte:
            at = [i for i, arg in enumerate(call.args) if arg.strip() == ref.name]
            return (call, at[0]) if len(at) == 1 else None
    return None


def _side(
    span: Span, refs: dict[Span, Ref], loop: Loop, source: SourceFile
) -> tuple[str, bool] | None:
    """What the callee says of the argument at `span`; None if it is none."""
    found = _argument(span, refs, loop)
    if found is None:
        return None
    call, at = found
    return callee_protection(call.name, at, source)


def callee_atomic(
    dep: Dependence,
    refs: dict[Span, Ref],
    loop: Loop,
    source: SourceFile,
    dialect: str,
) -> bool:
    """True when each end is in an `atomic`/`critical` of `dialect`.

    A callee's access through the argument, or the loop's own access.
    """
    called = False
    kinds: set[str] = set()
    for span in (dep.source, dep.sink):
        got = _side(span, refs, loop, source)
        ref = refs.get(span)
        kinds.add(got[0] if got is not None else (ref.atomic if ref else ""))
        called = called or got is not None
    # One lock for both (`lock:G`), or the dialect's atomic/critical.
    kind = next(iter(kinds)) if len(kinds) == 1 else ""
    protected = kind == dialect or (dialect == "omp" and kind.startswith("lock:"))
    return called and protected  # two of the loop's own: judged as always


def callee_branch(
    dep: Dependence, refs: dict[Span, Ref], loop: Loop, source: SourceFile
) -> bool:
    """True when an end is a callee's access under a condition of the callee."""
    for span in (dep.source, dep.sink):
        got = _side(span, refs, loop, source)
        if got is not None and got[1]:
            return True
    return False
