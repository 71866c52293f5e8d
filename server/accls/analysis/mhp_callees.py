"""Shared state that called functions write: `static` locals and globals."""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.callee_chain import chain_state_writes
from accls.analysis.callee_elements import element_collision
from accls.analysis.callee_pair import paired_access
from accls.analysis.callee_state import (
    state_name,
    threadprivate_fix,
    threadprivate_names,
)
from accls.analysis.concurrency_kinds import CALLEE_STATE_RACE
from accls.analysis.finding_types import Finding, finding
from accls.analysis.mhp_constructs import contains, first_word
from accls.analysis.mhp_insertions import call_critical_fix
from accls.frontend import (
    AccessKind,
    Call,
    Directive,
    Effect,
    Function,
    Loop,
    Ref,
    SourceFile,
    Var,
    library_function,
)

__all__ = [
    "call_excluded",
    "hidden_state",
    "hidden_write",
    "is_hidden_state",
    "is_static",
    "locked_state_writes",
    "loop_callee_findings",
    "made_in_loop",
    "state_writes",
]

_NAME = re.compile(r"[A-Za-z_]\w*")
_EXCLUDING = frozenset({"critical", "atomic", "single", "master", "masked", "ordered"})
# Library functions that share one hidden state with another: the seeders.
_SHARED_STATE = {
    "srand": "rand",
    "srandom": "random",
    "srand48": "drand48",
    "lrand48": "drand48",
    "mrand48": "drand48",
}


def hidden_state(name: str, source: SourceFile) -> str | None:
    """The hidden library state a call of `name` writes (`rand()`'s seed), if any."""
    if source.function(name) is not None:
        return None  # the program's own function, whatever the table says
    known = library_function(name)
    if known is None or known.effect is not Effect.HIDDEN:
        return None
    return f"{HIDDEN_PREFIX}{_SHARED_STATE.get(name, name)}_state"


HIDDEN_PREFIX = "__libc_"
"""Names of hidden library states, `__libc_rand_state`: identifiers, reserved to the
implementation in C, so no program variable has one."""


def is_hidden_state(name: str) -> bool:
    """True for a name `hidden_state` made."""
    return name.startswith(HIDDEN_PREFIX) and name.endswith("_state")


def hidden_write(call: Call, state: str) -> Ref:
    """The write of a hidden library state, placed at the call that makes it."""
    return Ref(name=state, kind=AccessKind.WRITE, span=call.span)


def is_static(fn: Function, var: Var, data: bytes) -> bool:
    """True for a `static` local of `fn`."""
    if var.span is None:
        return False
    for _, span in fn.block_decls:
        if span.start_byte <= var.span.start_byte < span.end_byte:
            head = data[span.start_byte : var.span.start_byte].decode(
                "utf-8", "replace"
            )
            return "static" in _NAME.findall(head)
    return False


def state_writes(
    callee: Function,
    source: SourceFile,
    threadprivate: frozenset[str],
    keep_critical: bool = False,
) -> list[Ref]:
    """Plain writes of a callee's `static` locals and globals, outside exclusion.

    With `keep_critical`, also those in `critical`, for callers that weigh names.
    """
    if any(c.startswith("omp_") for c in callee.calls):
        return []  # the callee synchronises in ways followed elsewhere
    static_vars = [v for v in callee.locals if is_static(callee, v, source.data)]
    statics = {v.name for v in static_vars} - threadprivate  # each thread's own
    inits = {v.span.start_byte for v in static_vars if v.span is not None}
    own = {v.name for v in (*callee.locals, *callee.params)} - statics
    globals_ = {g.name for g in source.globals} - threadprivate
    start, end = callee.span.start_byte, callee.span.end_byte
    excluding = _EXCLUDING - {"critical"} if keep_critical else _EXCLUDING
    guarded = [
        c
        for c in source.constructs
        if first_word(c) in excluding and start <= c.span.start_byte < end
    ]
    out: list[Ref] = []
    for ref in callee.refs:
        base = state_name(ref, callee)
        if base is None or (ref.atomic and not keep_critical):
            continue  # `critical` marks its accesses atomic too
        if ref.span.start_byte in inits:
            continue  # a static's initializer runs once, not per call
        if any(contains(c, ref.span.start_byte) for c in guarded):
            continue
        if base in statics or (base in globals_ and base not in own):
            out.append(ref)
    return out


_LOCK_SET = frozenset({"omp_set_lock", "omp_set_nest_lock"})
_LOCK_UNSET = frozenset({"omp_unset_lock", "omp_unset_nest_lock"})
_ADDRESS = re.compile(r"&\s*([A-Za-z_]\w*)")


def _callee_locks(callee: Function, source: SourceFile) -> list[tuple[int, str]] | None:
    """(position, +L or -L) of the callee's lock calls on `&L` of a global lock.

    None when its OpenMP calls are anything else (a lock through a pointer, a
    test lock, a barrier) or a lock call sits under a branch.
    """
    globals_ = {g.name for g in source.globals}
    branches = [b.span for b in source.branches if b.kind in ("if", "else")]
    out: list[tuple[int, str]] = []
    for call in callee.call_sites:
        if not call.name.startswith("omp_"):
            continue
        if call.name.startswith("omp_get_"):
            continue  # queries order nothing
        kind = (
            "+" if call.name in _LOCK_SET else "-" if call.name in _LOCK_UNSET else ""
        )
        match = _ADDRESS.fullmatch(call.args[0].strip()) if call.args else None
        if not kind or match is None or match.group(1) not in globals_:
            return None
        at = call.span.start_byte
        if any(b.start_byte <= at < b.end_byte for b in branches):
            return None
        out.append((at, kind + match.group(1)))
    return sorted(out)


def locked_state_writes(
    callee: Function, source: SourceFile, threadprivate: frozenset[str]
) -> list[tuple[Ref, frozenset[str]]]:
    """State writes of a callee with the global locks it holds at each.

    A callee with no OpenMP calls holds none; one whose lock calls cannot be
    followed gives nothing, as `state_writes` does.
    """
    locks = _callee_locks(callee, source)
    if locks is None:
        return []
    calls = tuple(c for c in callee.calls if not c.startswith("omp_"))
    spans = [c.span for c in callee.call_sites if c.name.startswith("omp_")]
    out: list[tuple[Ref, frozenset[str]]] = []
    for ref in state_writes(replace(callee, calls=calls), source, threadprivate):
        if any(s.start_byte <= ref.span.start_byte < s.end_byte for s in spans):
            continue  # `&lock` handed to the runtime: the lock object itself
        held: set[str] = set()
        for at, step in locks:
            if at >= ref.span.start_byte:
                break
            (held.add if step[0] == "+" else held.discard)(step[1:])
        out.append((ref, frozenset(f"lock:{name}" for name in held)))
    return out


def made_in_loop(loop: Loop, call: Call, source: SourceFile) -> bool:
    """True when every iteration makes the call, outside any exclusion in the loop."""
    pos = call.span.start_byte
    body = loop.body
    data = source.data
    start = max(data.rfind(mark, body.start_byte, pos) for mark in (b";", b"{", b"}"))
    head = data[max(start, body.start_byte) : pos]
    if any(op in head for op in (b"&&", b"||", b"?")):
        return False  # the call may be skipped: `x && f()`, `c ? f() : 0`
    for branch in source.branches:
        inside = body.start_byte <= branch.span.start_byte <= pos
        if (
            branch.kind != "loop"
            and inside
            and pos < branch.span.end_byte
            and _singles_out(
                branch.condition, branch.kind, source, body.start_byte, pos
            )
        ):
            return False  # maybe one iteration only: `if (i == 0) f();`
    return not call_excluded(loop, call, source)


def _unbranched(loop: Loop, call: Call, source: SourceFile) -> bool:
    """True when no `if` of the loop body lies around the call."""
    pos, body = call.span.start_byte, loop.body
    return not any(
        b.kind != "loop"
        and body.start_byte <= b.span.start_byte <= pos < b.span.end_byte
        for b in source.branches
    )


def _singles_out(
    condition: str, kind: str, source: SourceFile, start: int, pos: int
) -> bool:
    """True when an `if` arm may run on one iteration or thread only.

    An equality of a bare name or literal (`i == 0`), a thread number, or an arm
    whose condition is not known (an `else`, whose `if` is read instead) may select
    one iteration; a test such as `i % 2 == 0` or `a[i] > t` holds for many.
    """
    if kind == "else":
        heads = [
            b.condition
            for b in source.branches
            if b.kind == "if" and start <= b.span.start_byte < pos
        ]
        condition = heads[-1] if heads else "=="
    if not condition or "omp_" in condition:
        return True
    for test in re.split(r"&&|\|\|", condition):
        sides = test.split("==")
        if len(sides) == 2 and any(_BARE.fullmatch(x.strip(" ()!")) for x in sides):
            return True  # `i == 0`, `k == n - 1`: one value of a name
    return False


_BARE = re.compile(r"[A-Za-z_]\w*")


def call_excluded(loop: Loop, call: Call, source: SourceFile) -> bool:
    """True when the call sits in a `critical`, `atomic`, `single` ... of the loop."""
    pos = call.span.start_byte
    return any(
        first_word(c) in _EXCLUDING
        and loop.body.start_byte <= c.span.start_byte
        and contains(c, pos)
        for c in source.constructs
    )


def loop_callee_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC124 when each iteration of a parallel loop calls `name`, a state writer."""
    callee = source.function(name)
    call = next((c for c in loop.calls if c.name == name), None)
    state = hidden_state(name, source)
    if call is not None and state is not None:
        if call_excluded(loop, call, source):
            return []
        return [_hidden_finding(loop, directive, source, call, state)]
    if callee is None or call is None or not made_in_loop(loop, call, source):
        return []
    if callee.span.start_byte <= loop.span.start_byte < callee.span.end_byte:
        return []  # recursion through the loop's own function
    tp = threadprivate_names(source)
    callee, writes = chain_state_writes(callee, source, state_writes, tp)
    if not writes:
        return _element_findings(loop, directive, source, call, callee)
    ref = next((w for w in writes if w.is_write), writes[0])  # not an initializer
    also = paired_access(loop, source, name, callee, ref, writes)
    fix = threadprivate_fix(ref, name)
    if "teams" in directive.name or directive.dialect != "omp":
        fix = f"update `{ref.name}` with an atomic construct in `{name}`"
    static = any(
        v.name == ref.name and is_static(callee, v, source.data) for v in callee.locals
    )
    made = finding(
        CALLEE_STATE_RACE,
        call.span,
        var=ref.name,
        what="a `static` local" if static else "a global",
        callee=name,
        write=ref.span.line,
        **also,
        who="every iteration"
        if _unbranched(loop, call, source)
        else "more than one iteration",
        call=call.span.line,
        region=directive.name,
        line=loop.line,
        rule="the iterations of the loop run on different threads",
        fix=fix,
    )
    if directive.dialect == "omp" and not {"teams", "target"} & set(
        directive.name.split()
    ):
        at = call_critical_fix(source.data, call, loop.body.start_byte)
        made = replace(made, insert=at)
    return [made]


def _hidden_finding(
    loop: Loop, directive: Directive, source: SourceFile, call: Call, state: str
) -> Finding:
    """ACC124 for a library call whose hidden state every iteration updates."""
    made = finding(
        CALLEE_STATE_RACE,
        call.span,
        var=state,
        what="hidden state of the C library",
        callee=call.name,
        write=call.span.line,
        also="",
        who="every iteration",
        call=call.span.line,
        region=directive.name,
        line=loop.line,
        rule="the iterations run on different threads, and the library keeps one "
        "state for them all",
        fix=f"use a reentrant form (`{call.name}_r`) with a state per thread, or "
        f"call `{call.name}` in a `critical`",
    )
    if directive.dialect == "omp" and not {"teams", "target"} & set(
        directive.name.split()
    ):
        at = call_critical_fix(source.data, call, loop.body.start_byte)
        made = replace(made, insert=at)
    return made


def _element_findings(
    loop: Loop, directive: Directive, source: SourceFile, call: Call, callee: Function
) -> list[Finding]:
    """ACC124 when two iterations' arguments make the callee write one element."""
    found = element_collision(loop, call, callee, source)
    if found is None:
        return []
    ref, first, second, element = found
    return [
        finding(
            CALLEE_STATE_RACE,
            call.span,
            var=ref.name,
            what="a global array",
            callee=callee.name,
            write=ref.span.line,
            also="",
            who="every iteration",
            call=call.span.line,
            region=directive.name,
            line=loop.line,
            rule=f"the arguments of iterations {first} and {second} make it write "
            f"`{element}` through `{ref.render()}`, and the iterations run on "
            "different threads",
            fix=f"give each iteration its own element, or update `{ref.name}` with "
            "an atomic construct",
        )
    ]
