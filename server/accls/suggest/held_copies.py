"""Offloading a host loop whose data the user's own directives hold on the device.

A data clause on data the device already holds moves nothing (present-or
semantics): a `declare`d global, an array between the user's `enter data` and
`exit data`, or one of the user's `data` region. The user keeps the two copies
coherent with `update`s, and a host loop there reads and writes the host copy.
Offloaded, it would read the device copy, which may be older than the host's
(`create`, or host writes since), and write the device copy, which the host
then never sees, or which a later `update device` overwrites with the host's
older values. The results change.

So an offloaded loop touching such data is refused unless this is proved, in
the loop's own function, between the directive that starts the hold and the
one that ends it (`exit data`, or the end of the `data` construct's block):

- nothing but the loop names the array there (no host access, no `update`, no
  other kernel), no call runs there, no pointer copies or takes its address in
  the function, and no `return`, `goto` or `exit` leaves between;
- the device copy is the host's when the loop starts: the hold copies it in,
  or the loop reads none of it and writes every element the hold covers;
- what the loop writes goes back to the host where the hold ends (`copyout`,
  `copy`, `map(from:)`, `map(tofrom:)`).

A `declare`d array is held for the whole program: always refused. So is one a
hold names in another function (a global), which this module cannot follow.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse, loop_array_uses
from accls.analysis.data_clauses import Section, clause_sections
from accls.analysis.device_coherence import function_directives
from accls.frontend import Directive, Function, Loop
from accls.suggest.held_text import (
    TO_DEVICE,
    TO_HOST,
    aliased,
    block_end,
    copied,
    depths,
    names_in,
    quiet_between,
    same,
    scratch,
    update,
)
from accls.suggest.region_present import covers_use
from accls.suggest.suggestion import Suggestion

__all__ = ["held_refusals"]

_COPY_IN = frozenset({"copy", "copyin"})
_COPY_OUT = frozenset({"copy", "copyout"})
_ENTER = frozenset({"enter data", "target enter data"})
_EXIT = frozenset({"exit data", "target exit data"})
_DATA = frozenset({"data", "target data"})
_HOLDS = frozenset({"enter data", "target enter data", "data", "target data"})


@dataclass(frozen=True, slots=True)
class _Hold:
    """A user's directive that holds an array on the device around a loop."""

    at: int  # where the opening directive starts
    body: int  # where the code it holds begins
    until: int  # where the hold ends: the `exit data`, or the `data` block's end
    opening: Directive
    closing: Directive | None  # None: no end in this function


def _hold(
    data: bytes, loop: Loop, name: str, directives: list[tuple[int, Directive]]
) -> _Hold | None:
    """The innermost of the user's holds of `name` around `loop`, if any."""
    start, end = loop.span.start_byte, loop.span.end_byte
    holds: list[_Hold] = []
    for at, directive in directives:
        if directive.name not in _HOLDS or not names_in(directive, name) or at >= start:
            continue
        body = directive.span.end_byte if directive.span else at
        if directive.name in _DATA:
            block = block_end(data, body)
            if block is not None and end <= block:
                holds.append(_Hold(at, body, block, directive, directive))
            continue
        exits = [
            (x, d)
            for x, d in directives
            if d.name in _EXIT and names_in(d, name) and x > at
        ]
        if not exits:
            holds.append(_Hold(at, body, len(data), directive, None))
            continue
        x, closing = min(exits, key=lambda e: e[0])
        if x >= start:  # an exit before the loop ends this hold before it
            holds.append(_Hold(at, body, x, directive, closing))
    return max(holds, key=lambda h: h.at) if holds else None


def _defines(use: ArrayUse, sections: list[Section]) -> bool:
    """The nest writes every element of the hold's sections, reading none first."""
    return (
        not use.read_first
        and not use.read
        and use.exact_cover
        and bool(sections)
        and all(same(s, use) for s in sections)
    )


def _held(
    analysis: FileAnalysis,
    fn: Function,
    loop: Loop,
    use: ArrayUse,
    scene: _Scene,
) -> str | None:
    """Why offloading breaks the user's hold of `use`, or None when it is proved."""
    data, name = analysis.source.data, use.name
    start, end = loop.span.start_byte, loop.span.end_byte
    hold = _hold(data, loop, name, scene.directives)
    if hold is None:
        return None
    row = data.count(b"\n", 0, hold.at) + 1
    why = f"`{name}` is on the device from the `{hold.opening.name}` at line {row}"
    if hold.closing is None or hold.until < end:
        return why + (
            ", with no end in this function: offloaded, the loop would use the "
            "device copy, which the host's copy may not match"
        )
    quiet, many = scene.blanked, aliased(fn, name)
    ins = [s for s in clause_sections(hold.opening) if s.name == name]
    sent = update(scene.directives, (hold.body, start), name, TO_DEVICE, use, ins)
    first = sent.span.end_byte if sent is not None and sent.span else hold.body
    if sent is not None and depths(data, first, start)[0] < 0:
        sent, first = None, hold.body  # an update in a block the loop is not in
    back = None
    if use.written:
        back = update(scene.directives, (end, hold.until), name, TO_HOST, use, ins)
    last = back.span.start_byte if back is not None and back.span else hold.until
    if copied(fn, name, data) or not (
        quiet_between(quiet, first, start, name, aliased=many)
        and quiet_between(quiet, end, last, name, aliased=many)
    ):
        return why + (
            f": host code touches it between that and the loop at line "
            f"{loop.keyword.line} or the end of the hold, so the device and host "
            "copies may differ there; offloaded, the loop would read or write the "
            "wrong one"
        )
    coherent = (
        sent is not None
        or any(s.kind in _COPY_IN for s in ins)
        or _defines(use, ins)
        or any(
            # An offloaded nest of the hold before this one that defines it all.
            hold.body <= other.span.start_byte
            and other.span.end_byte <= start
            and any(
                u.name == name and u.written and _defines(u, ins)
                for u in loop_array_uses(other, analysis)
            )
            for other in scene.device
        )
    )
    # Elements the nest only writes need no coherent start: what comes back
    # there is the device's copy, as it was for the host loop (whose writes the
    # copy back overwrote), now with the nest's values.
    if not coherent and use.read_first:
        return why + ": its device copy is not the host's when the loop starts"
    if use.written and back is None:
        outs = [s for s in clause_sections(hold.closing) if s.name == name]
        if not any(
            s.kind in _COPY_OUT and covers_use(s, use) for s in outs
        ) and not scratch(fn, name, hold.until, data):
            return why + (
                ": what the loop would write there never comes back to the host "
                "(the hold ends without copying it out)"
            )
    return None


@dataclass(frozen=True, slots=True)
class _Scene:
    """The function's directives, and the nests offloaded beside the loop."""

    directives: list[tuple[int, Directive]]
    device: tuple[Loop, ...]  # the other nests offloaded: device code, blanked
    blanked: bytes  # the file with those nests blanked out


def _scene(
    analysis: FileAnalysis, fn: Function, sentinel: str, device: tuple[Loop, ...]
) -> _Scene:
    text = bytearray(analysis.source.data)
    for other in device:
        a, b = other.span.start_byte, other.span.end_byte
        text[a:b] = re.sub(rb"[^\n]", b" ", bytes(text[a:b]))
    directives = function_directives(analysis.source, fn, sentinel)
    return _Scene(directives, device, bytes(text))


def held_refusals(
    analysis: FileAnalysis, found: Sequence[Suggestion]
) -> list[Suggestion]:
    """`found`, with offloaded nests that would bypass the user's holds refused.

    The other offloaded nests are device code: what they touch stays coherent
    on the device. Refusing one makes it host code again, so this runs until
    nothing changes. Loops inside a refused nest are refused with it.
    """
    source = analysis.source
    out = list(found)
    if source.language != "c" or not any(
        w in source.data for w in (b"declare", b"enter", b"data")
    ):
        return out
    while True:
        device = [s for s in out if _offloaded(s)]
        refused: dict[int, tuple[str, ...]] = {}
        for s in device:
            others = tuple(d.loop for d in device if d is not s)
            why = _why(s.loop, analysis, s.options.dialect.sentinel, others)
            if why:
                refused[s.loop.id] = why
        if not refused:
            return out
        spans = [
            (s.loop.span.start_byte, s.loop.span.end_byte, refused[s.loop.id])
            for s in device
            if s.loop.id in refused
        ]
        out = [_refused(s, spans) for s in out]


def _offloaded(s: Suggestion) -> bool:
    return s.pragma is not None and not s.inner and s.existing is None and s.offloaded


def _refused(
    s: Suggestion, spans: list[tuple[int, int, tuple[str, ...]]]
) -> Suggestion:
    for a, b, why in spans:
        if s.pragma is not None and a <= s.loop.span.start_byte < b:
            return replace(s, pragma=None, reasons=why, region=None, routines=())
    return s


def _why(
    loop: Loop, analysis: FileAnalysis, sentinel: str, device: tuple[Loop, ...]
) -> tuple[str, ...]:
    """Why offloading `loop` would bypass the user's own device copies (empty: fine)."""
    source = analysis.source
    fn = source.function(loop.function) if loop.function else None
    if fn is None or loop.fortran:
        return ()
    mine = tuple(d for d in device if d.function == loop.function)
    scene = _scene(analysis, fn, sentinel, mine)
    declared = _declared(analysis, sentinel)
    out: list[str] = []
    for use in loop_array_uses(loop, analysis):
        if use.name in declared:
            out.append(
                f"`{use.name}` is on the device for the whole program "
                f"(`declare` at line {declared[use.name]}): offloaded, the loop "
                "would use the device copy, which your `update`s keep apart from the "
                "host's"
            )
            continue
        why = _held(analysis, fn, loop, use, scene)
        if (
            why is None
            and fn.lookup(use.name) is None
            and _held_elsewhere(analysis, fn, use.name, sentinel)
        ):
            why = (
                f"`{use.name}` is held on the device by a data directive of another "
                "function: offloaded, the loop may use a device copy the host's does "
                "not match"
            )
        if why is not None:
            out.append(why)
    return tuple(out)


def _declared(analysis: FileAnalysis, sentinel: str) -> dict[str, int]:
    """Names any `declare` (OpenMP: `declare target`) of the file lists, by line."""
    key = f"declared {sentinel}"
    kept = analysis.memo.get(key)
    if isinstance(kept, dict):
        return kept
    found: dict[str, int] = {}
    data = analysis.source.data
    word = rb"declare[ \t]+target\b" if sentinel == "omp" else rb"declare\b"
    pattern = re.compile(
        rb"^[ \t]*#[ \t]*pragma[ \t]+"
        + re.escape(sentinel.encode())
        + rb"[ \t]+"
        + word
        + rb"([^\n]*(?:\\\n[^\n]*)*)",
        re.M,
    )
    for match in pattern.finditer(data):
        line = data.count(b"\n", 0, match.start()) + 1
        for name in re.findall(rb"[A-Za-z_]\w*", match.group(1)):
            found.setdefault(name.decode(), line)
    analysis.memo[key] = found
    return found


def _held_elsewhere(
    analysis: FileAnalysis, fn: Function, name: str, sentinel: str
) -> bool:
    """Whether a data directive of another function names the global `name`."""
    word = re.compile(r"\b" + re.escape(name) + r"\b")
    for other in analysis.source.functions:
        if other.name == fn.name:
            continue
        for _, directive in function_directives(analysis.source, other, sentinel):
            held = directive.name in _HOLDS | _EXIT or directive.name == "update"
            if held and any(word.search(c.args or "") for c in directive.clauses):
                return True
    return False
