"""What synchronises a parallel region besides its constructs, and what blurs it."""

from __future__ import annotations

import re

from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.analysis.mhp_tasks import Task, task_context
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.frontend import (
    AccessKind,
    Call,
    Function,
    Region,
    SourceFile,
    library_function,
)

__all__ = [
    "atomic_targets",
    "fence_doubt",
    "library_destinations",
    "memory_order",
    "region_doubt",
    "sync_calls",
]

_MEMORY_ORDER = frozenset({"seq_cst", "acquire", "release", "acq_rel"})

_NO_SYNC = frozenset("sprintf snprintf exit abort assert".split())
"""Library calls that never hold a barrier, besides those of the table of effects
(none of which does)."""


def sync_calls(
    region: Region, fn: Function, source: SourceFile, tasks: list[Task]
) -> tuple[list[Call], list[tuple[int, str, int]]]:
    """Calls whose callee holds a barrier, and calls that may (unknown callees)."""
    # An orphaned `barrier`, or worksharing without `nowait`, in a callee
    # synchronises the team that calls it.
    barriers = [
        c.directive.span.start_byte
        for c in source.constructs
        if c.directive.span is not None
        and (
            first_word(c) == "barrier"
            or (
                first_word(c) in ("for", "sections", "single")
                and c.directive.clause("nowait") is None
            )
        )
    ]
    sure: list[Call] = []
    maybe: list[tuple[int, str, int]] = []
    for call in fn.call_sites:
        pos = call.span.start_byte
        if not contains(region, pos) or task_context(tasks, pos) != -1:
            continue
        name = call.name
        if (
            name.startswith("omp_")
            or name in PURE_FUNCTIONS
            or name in _NO_SYNC
            or (library_function(name) is not None and source.function(name) is None)
        ):
            continue
        callee = source.function(name)
        if callee is None:
            maybe.append((pos, name, call.span.line))
        elif any(callee.span.start_byte <= b < callee.span.end_byte for b in barriers):
            sure.append(call)
    return sure, maybe


_BRANCH = re.compile(rb"[ \t]*#[ \t]*(?:else|elif|endif)\b")
"""A preprocessor branch line right after a pragma: the pragma is in one arm."""


def region_doubt(
    region: Region, inner: list[Region], fn: Function, source: SourceFile
) -> str:
    """Why no verdict in the region can be sure, "" when nothing stands in the way."""
    broken = [e for e in source.errors if contains(region, e.start_byte)]
    if broken:
        return f"the parser could not read line {broken[0].line} of the region"
    for var in fn.locals:
        # `double * RESTRICT p;` with the macro unknown declares `RESTRICT`, and
        # the real variable goes unseen.
        at = var.span.start_byte if var.span else -1
        if contains(region, at) and len(var.name) > 1 and var.name.isupper():
            return (
                f"the declaration at line {var.span.line if var.span else 0} uses "
                f"`{var.name}`, a macro the checker cannot expand"
            )
    for construct in inner:
        # `#if X / #pragma omp for collapse(2) / #else / #pragma omp for / #endif`:
        # which pragma governs the statement depends on the macro.
        span = construct.directive.span
        if span is None:
            continue
        after = source.data.find(b"\n", max(span.end_byte - 1, 0)) + 1
        if after > 0 and _BRANCH.match(source.data, after):
            return (
                f"the `{construct.directive.name}` at line {span.line} sits "
                "in a preprocessor branch: which pragma governs the statement is "
                "decided by the macro"
            )
    return ""


def memory_order(construct: Region) -> str:
    """The memory order an `atomic` or `flush` names, "" when none (relaxed)."""
    names = {c.name for c in construct.directive.clauses}
    names |= set(construct.directive.name.split())
    return next((word for word in sorted(names & _MEMORY_ORDER)), "")


def fence_doubt(inner: list[Region]) -> str:
    """Why `flush` or ordered atomics may synchronise in ways the phases miss."""
    if any(first_word(c) == "flush" for c in inner):
        return "`flush` builds hand-made synchronisation the model does not follow"
    for c in inner:
        if first_word(c) == "atomic" and memory_order(c):
            return (
                f"the `atomic` with a memory order at line {c.span.line} builds "
                "hand-made synchronisation the model does not follow"
            )
    return ""


def atomic_targets(inner: list[Region], fn: Function) -> dict[int, frozenset[str]]:
    """The location each `atomic` construct accesses atomically, by pragma start.

    Only `x` is atomic in `x += expr`, `v = x` (read) or `v = x++` (capture): the
    other variables of the statement are plain accesses.
    """
    out: dict[int, frozenset[str]] = {}
    for construct in inner:
        if first_word(construct) != "atomic":
            continue
        refs = [
            r
            for r in fn.refs
            if contains(construct, r.span.start_byte) and not r.subscripts
        ]
        words = {c.name for c in construct.directive.clauses} | set(
            construct.directive.name.split()
        )
        updates = {r.name for r in refs if r.kind is AccessKind.UPDATE}
        if "read" in words:
            names = {r.name for r in refs if r.kind is AccessKind.READ}
        elif updates:
            names = updates
        else:
            names = {r.name for r in refs if r.is_write}
        array_targets = {
            r.name
            for r in fn.refs
            if contains(construct, r.span.start_byte) and r.subscripts and r.is_write
        }
        out[pragma_at(construct)] = frozenset(names | array_targets)
    return out


_DESTINATION = frozenset(
    "memcpy memmove memset strcpy strncpy strcat strncat sprintf snprintf".split()
)
"""Library functions that write through their first argument."""


def library_destinations(
    fn: Function, region: Region, source: SourceFile
) -> frozenset[int]:
    """Start bytes of the arrays a library call in `region` writes: `memcpy(buf, ..)`.

    Only a bare array name counts (the copy starts at its first element, so two
    threads' copies meet); `buf + k` or `&buf[k]` may be apart.
    """
    out: set[int] = set()
    for call in fn.call_sites:
        at = call.span.start_byte
        if call.name not in _DESTINATION or not contains(region, at) or not call.args:
            continue
        first = min(
            (r for r in fn.refs if at <= r.span.start_byte < call.span.end_byte),
            key=lambda r: r.span.start_byte,
            default=None,
        )
        name = call.args[0].strip()
        if first is None or first.name != name or first.subscripts or first.deref:
            continue
        var = fn.lookup(name) or next(
            (g for g in source.globals if g.name == name), None
        )
        if var is None or not var.dims:
            continue
        out.add(first.span.start_byte)
    return frozenset(out)
