"""`present` in kernels that run while the user's `enter data` keeps their arrays.

Between `#pragma acc enter data copyin(a[0:n])` (OpenMP: `target enter data
map(to: a[0:n])`) and its `exit data`, a kernel that touches `a` finds it on the
device. Its copy clauses would move nothing (present-or semantics), but an expert
writes `present(a[0:n])`. The runtime's `acc_copyin(a, n * sizeof(*a))` and
its kin count as the directives they stand for (`runtime_events`). It is
written only when every path to the kernel passes the `enter data` with no
`exit data` of the array between; else `present` would stop the program where
the copy clause moves the data:

- the `enter data` is in a block that encloses the kernel, before it, with no
  `if`/`async` clause, no preprocessor branch, `case` label, or runtime call
  (`acc_*`, `omp_target_*`) between them, and no `goto` in the function;
- no `exit data` naming the array lies between them, nor after the kernel inside
  a block the `enter data` does not also start (a loop around both would reach
  the kernel again after it);
- the array is a local or a parameter whose pointer nothing reassigns after the
  `enter data` (a swap would leave the name on memory the device does not hold;
  its declaration's value, before it, is the one held);
- the `enter data`'s section covers every element the kernel touches.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse, loop_array_uses
from accls.analysis.data_clauses import clause_sections
from accls.analysis.device_coherence import function_directives
from accls.frontend import Directive, Function, Span, Var
from accls.suggest.held_text import depths
from accls.suggest.lifetime_edits import present_clauses
from accls.suggest.region_present import covers_use
from accls.suggest.runtime_events import modeled_events
from accls.suggest.suggestion import Suggestion

__all__ = ["entered_holds", "entered_present"]

_ENTER = frozenset({"enter data", "target enter data"})
_EXIT = frozenset({"exit data", "target exit data"})
_ENTERS = frozenset({"copyin", "create"})
_BRANCH = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b", re.M)
_BETWEEN = re.compile(rb"\b(case|default|acc_\w+|omp_target_\w+)\b")


def _deeper(depths: tuple[int, int]) -> bool:
    """Inside a block opened after the start, never leaving the start's block."""
    return depths[0] >= 0 and depths[1] > 0


def _names(directive: Directive, name: str) -> bool:
    word = re.compile(r"\b" + re.escape(name) + r"\b")
    return any(word.search(c.args or "") for c in directive.clauses)


def _stable(
    fn: Function,
    name: str,
    globals_: tuple[Var, ...],
    events: list[tuple[int, Directive]],
    after: int,
) -> bool:
    """A local, parameter or global array whose pointer nothing reassigns.

    From `after` (the `enter data`) on; its hand-over to the runtime calls
    read as directives (`events`) keeps it.
    """
    calls = [(d.span.start_byte, d.span.end_byte) for _, d in events if d.span]
    var = fn.lookup(name)
    if var is None:
        found = [g for g in globals_ if g.name == name]
        # A global pointer: a callee may point it elsewhere.
        if len(found) != 1 or not found[0].dims or found[0].pointers:
            return False
    # A pointer whose address escapes, even before, may be reassigned later.
    return not any(
        r.name == name
        and (
            (
                r.is_write
                and not (r.subscripts or r.deref)
                and r.span.start_byte >= after
            )
            or r.escapes
        )
        and not any(a <= r.span.start_byte < b for a, b in calls)
        for r in fn.refs
    )


def entered_holds(
    analysis: FileAnalysis, fn: Function, kernel: Span, use: ArrayUse, sentinel: str
) -> bool:
    """True when an `enter data` of `fn` holds `use` on every path to `kernel`."""
    data = analysis.source.data
    body = data[fn.span.start_byte : fn.span.end_byte]
    events = modeled_events(analysis, fn) if sentinel == "acc" else []
    if re.search(rb"\bgoto\b", body):
        return False
    directives = function_directives(analysis.source, fn, sentinel)
    directives = sorted([*directives, *events], key=lambda e: e[0])
    exits = [(at, d) for at, d in directives if d.name in _EXIT and _names(d, use.name)]
    for at, directive in directives:
        span = directive.span
        if directive.name not in _ENTER or span is None or at >= kernel.start_byte:
            continue
        if any(directive.clause(c) is not None for c in ("if", "async", "nowait")):
            continue
        if not _stable(fn, use.name, analysis.source.globals, events, at):
            continue
        sections = [
            s
            for s in clause_sections(directive)
            if s.name == use.name and s.kind in _ENTERS
        ]
        if not any(covers_use(s, use) for s in sections):
            continue
        between = _without(data, (span.end_byte, kernel.start_byte), events)
        if depths(data, span.end_byte, kernel.start_byte)[0] < 0:
            continue  # the kernel is outside the block of the `enter data`
        if _BRANCH.search(between) or _BETWEEN.search(between):
            continue
        if any(span.end_byte <= x < kernel.start_byte for x, _ in exits):
            continue
        if any(
            x >= kernel.end_byte and _deeper(depths(data, span.end_byte, x))
            for x, _ in exits
        ):
            continue  # an exit in a block the `enter data` does not start
        return True
    return False


def _without(
    data: bytes, within: tuple[int, int], events: list[tuple[int, Directive]]
) -> bytes:
    """The bytes `within`, the runtime calls read as directives blanked."""
    text = bytearray(data[within[0] : within[1]])
    for _, d in events:
        if d.span is not None and within[0] <= d.span.start_byte < within[1]:
            a, b = d.span.start_byte - within[0], d.span.end_byte - within[0]
            text[a:b] = b" " * (min(b, len(text)) - a)
    return bytes(text)


def entered_present(
    analysis: FileAnalysis, found: tuple[Suggestion, ...]
) -> tuple[Suggestion, ...]:
    """`found`, with `present` for the arrays a user's `enter data` holds."""
    source = analysis.source
    if b"enter" not in source.data and b"acc_" not in source.data:
        return found
    present: dict[int, frozenset[str]] = {}
    for s in found:
        fn = source.function(s.loop.function) if s.loop.function else None
        if s.pragma is None or s.inner or s.existing is not None or fn is None:
            continue
        if not s.offloaded:
            continue
        sentinel = s.pragma.dialect.sentinel
        names = frozenset(
            u.name
            for u in loop_array_uses(s.loop, analysis)
            if entered_holds(analysis, fn, s.loop.span, u, sentinel)
        )
        if names:
            present[s.loop.id] = names
    return tuple(_with_present(s, present) for s in found)


def _with_present(s: Suggestion, present: dict[int, frozenset[str]]) -> Suggestion:
    names = present.get(s.loop.id)
    if s.pragma is None or names is None:
        return s
    region = s.region
    if region is not None and all(
        {n for n, _ in region.present} <= present.get(loop.id, frozenset())
        for loop in region.loops
    ):
        region = None  # the `enter data` already holds all the region would
    listed = ", ".join(f"`{n}`" for n in sorted(names))
    why = (
        f"present: the `enter data` before the loop keeps {listed} on the device on "
        "every path to it"
    )
    return replace(
        s,
        pragma=present_clauses(s.pragma, names),
        region=region,
        reasons=(*s.reasons, why),
    )
