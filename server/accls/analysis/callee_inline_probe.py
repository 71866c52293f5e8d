"""A nest with its callees' accesses written in, for the dependence test only.

callee_inline maps the accesses of a call's callee (`upd(i)`: `r[i]`, `u[i - 1]`,
...) into the caller's names. `inline_probe` places them in a copy of the nest,
right after the call's arguments, inside the loops around the call, and the
callee's own loops with them; the dependence graph is then built as if the
callee's body were written at the call. `inline_verdict` says whether a loop
may rely on it: the call is placed, and nothing else of the loop can reach
what the callee touches unseen: the loop writes none of those variables
itself (its privatisation would not cover the callee's accesses), nor through
a pointer (which could point into them), and its every other call is pure or
placed too.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.callee_inline import Inlined, inline_call
from accls.frontend import Call, Function, Loop, Ref, SourceFile, Var

__all__ = ["inline_probe", "inline_verdict"]

_RENAMED = re.compile(r"__accls_c\d+_")


def _anchor(call: Call, refs: tuple[Ref, ...]) -> Ref | None:
    """A reference inside the call's arguments: where the call sits in the nest."""
    return next(
        (
            r
            for r in refs
            if call.span.start_byte <= r.span.start_byte < call.span.end_byte
        ),
        None,
    )


def _placed(
    call: Call,
    nest: Loop,
    caller: Function | None,
    source: SourceFile,
    pure: frozenset[str],
) -> tuple[Ref, Inlined] | None:
    anchor = _anchor(call, nest.refs)
    if anchor is None or not anchor.loops or caller is None:
        return None
    if any(x < 0 for x in anchor.context) or anchor.guarded:
        return None  # a call on some paths only: its writes cover nothing
    if any(c.name.startswith("omp_") for c in nest.calls):
        return None  # locks: the exclusion is followed by the callees' checks
    at = call.span.start_byte
    if any(
        nest.body.start_byte <= c.span.start_byte <= at < c.span.end_byte
        for c in source.constructs
    ):
        return None  # `critical`, `atomic`, ... around the call, inside the nest
    inlined = inline_call(call, caller, source, pure)
    if inlined is None:
        return None
    # A scratch array the loop reads after the callee fills it is callee_fills'
    # (private, or a race the callees' checks name): the loop's own, untouched.
    calls = [c.span for c in nest.calls]
    own = {
        r.name
        for r in nest.refs
        if not any(s.start_byte <= r.span.start_byte < s.end_byte for s in calls)
    }
    return None if own & inlined.passed else (anchor, inlined)


def inline_probe(nest: Loop, source: SourceFile, pure: frozenset[str]) -> Loop:
    """`nest` with the accesses of each placeable call written in (see module)."""
    caller = source.function(nest.function)
    found: list[tuple[Call, Ref, Inlined]] = []
    for call in nest.calls:
        placed = _placed(call, nest, caller, source, pure)
        if placed is not None:
            found.append((call, *placed))
    if not found:
        return nest
    return _with_calls(nest, found)


def _with_calls(loop: Loop, found: list[tuple[Call, Ref, Inlined]]) -> Loop:
    refs = list(loop.refs)
    own: list[Loop] = []
    for call, anchor, inlined in found:
        if loop.id not in anchor.loops:
            continue
        level = anchor.loops.index(loop.id)
        outer, context = anchor.loops, anchor.context
        at = next(
            (k for k, r in enumerate(refs) if r.span.start_byte >= call.span.end_byte),
            len(refs),
        )
        refs[at:at] = [
            replace(r, loops=(*outer, *r.loops), context=(*context, *r.context))
            for r in inlined.refs
        ]
        if level == len(anchor.loops) - 1:
            own.extend(_shifted(copy, outer, context) for copy in inlined.loops)
    children = tuple(_with_calls(c, found) for c in loop.children)
    return replace(loop, refs=tuple(refs), children=(*children, *own))


def _shifted(copy: Loop, outer: tuple[int, ...], context: tuple[int, ...]) -> Loop:
    """A callee loop's copy with the call's loops and context before its own."""
    refs = tuple(
        replace(r, loops=(*outer, *r.loops), context=(*context, *r.context))
        for r in copy.refs
    )
    children = tuple(_shifted(c, outer, context) for c in copy.children)
    return replace(copy, refs=refs, children=children)


def _declared(name: str, caller: Function | None, source: SourceFile) -> Var | None:
    """The caller's declaration of `name`, or the file's global one."""
    var = caller.lookup(name) if caller is not None else None
    if var is None and (caller is None or not caller.declarations(name)):
        var = next((g for g in source.globals if g.name == name), None)
    return var


def inline_verdict(
    call: Call, loop: Loop, source: SourceFile, pure: frozenset[str]
) -> tuple[bool, str] | None:
    """(True, why) when `loop` may read `call` through its inlined accesses."""
    caller = source.function(loop.function)
    placed = _placed(call, loop, caller, source, pure)
    if placed is None:
        return None
    inlined = placed[1]
    others = [c for c in loop.calls if c.name not in pure]
    if any(_placed(c, loop, caller, source, pure) is None for c in others):
        return None
    spans = [c.span for c in others]
    pure_spans = [c.span for c in loop.calls if c.name in pure]
    for ref in loop.refs:
        at = ref.span.start_byte
        if any(s.start_byte <= at < s.end_byte for s in spans):
            continue  # an argument of a placed call: its accesses are written in
        var = _declared(ref.name, caller, source)
        # A pointer (local, parameter or global), or a name we cannot place.
        through = var is None or var.pointers > 0 or var.scope == "param"
        # `p[i]`, `*p`, or `strlen(p)`: memory a pointer reaches, maybe the callee's
        reach = ref.subscripts or ref.deref or ref.member or ref.escapes
        reach = reach or any(s.start_byte <= at < s.end_byte for s in pure_spans)
        if through and reach and (ref.is_write or inlined.written):
            return None
        if (ref.is_write or ref.escapes) and (
            ref.name in inlined.names or ref.deref or ref.member
        ):
            return None  # the loop writes what the callee touches, or anything
    shown = (_RENAMED.sub("", r.render()) for r in inlined.refs)  # callee counters
    listed = ", ".join(f"`{text}`" for text in dict.fromkeys(shown))
    return True, (
        f"`{call.name}()` accesses only {listed or 'its own variables'} outside "
        "itself, with its arguments in place: tested like the loop's own accesses"
    )
