"""Fortran: the proof that offloading a loop keeps a hold of its subprogram's array.

The common shapes of `held_proof`, for an array of the subprogram's own (no
other name reaches it): `call acc_copyin(a)` or `!$acc enter data copyin(a)`,
the loop, then `call acc_copyout(a)`, `!$acc exit data copyout(a)` or
`!$acc update self(a)` (`hold_events`). Held, the loop's data clauses move
nothing, so it is offloaded only when

- every event of the array before the loop is on every path to it (none in a
  branch the loop is not in) and the array is held once there (a second
  `acc_copyin` counts the hold up, and one `acc_copyout` would then copy
  nothing back); a `do` around the loop opens as many holds as it closes;
- the device copy is the host's where the loop starts: the last event before
  it copies in, updates either way, or the loop (or device code before it)
  writes every element without reading one first;
- nothing on the host names the array, or leaves, between that event and the
  loop, nor between the loop and the next event, which runs on every path
  after the loop and brings back what the loop writes (`copyout`, `update
  self`).

Other device code (the other nests offloaded) is blanked: what it touches
stays on the device.
"""

from __future__ import annotations

import re

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse, loop_array_uses
from accls.frontend import Function, Loop
from accls.suggest.fortran_hold_events import OPENS, HoldEvent, hold_events

__all__ = ["fortran_held"]

_COMMENT = re.compile(rb"'[^'\n]*'|\"[^\"\n]*\"|![^$\n][^\n]*|!$", re.M)
_JOIN = re.compile(rb"&[ \t]*\r?\n[ \t]*&?")
_LEAVES = re.compile(rb"\b(?:go\s*to|return|stop|exit|cycle)\b", re.I)
_OPENER = re.compile(
    rb"^\s*(?:\w+\s*:\s*)?(?:do\b|if\s*\(.*\)\s*then\s*$|select\s*(?:case|type|rank)\b"
    rb"|block\s*$|associate\b|where\s*\(.*\)\s*$|forall\s*\(.*\)\s*$)",
    re.I,
)
_CLOSER = re.compile(
    rb"^\s*end\s*(?:do|if|select|block|associate|where|forall)\b", re.I
)
_BRANCH = re.compile(
    rb"^\s*(?:else|elsewhere|case\b|class\s+is|type\s+is|rank\b)", re.I
)
_BACK = frozenset({"copyout", "self"})
_DIRECTIVE_LINE = re.compile(rb"^[ \t]*!\$[^\n]*", re.M)


def _code(data: bytes, start: int, end: int) -> bytes:
    """The text between the offsets: comments and strings out, lines joined."""
    return _JOIN.sub(b" ", _COMMENT.sub(b" ", data[start:end]))


def _walk(code: bytes) -> tuple[int, int, bool]:
    """(lowest, final) block depth over `code`, and whether it ends on another path.

    A branch (`else`, `case`) of a block around the start starts another path,
    until that block ends.
    """
    depth = low = 0
    other: int | None = None
    for line in code.split(b"\n"):
        for statement in line.split(b";"):
            if _CLOSER.match(statement):
                depth -= 1
                low = min(low, depth)
                if other is not None and depth < other:
                    other = None
            elif _BRANCH.match(statement):
                if depth == low and other is None:
                    other = depth
            elif _OPENER.match(statement):
                depth += 1
    return low, depth, other is not None


def _quiet(code: bytes, name: str) -> bool:
    """Nothing in `code` names the array or leaves the subprogram."""
    word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b", re.I)
    statements = _DIRECTIVE_LINE.sub(b" ", code)  # `exit data` leaves nothing
    return not word.search(code) and not _LEAVES.search(statements)


def _defines(use: ArrayUse) -> bool:
    return use.written and not use.read and not use.read_first and use.exact_cover


def fortran_held(
    analysis: FileAnalysis,
    fn: Function,
    loop: Loop,
    use: ArrayUse,
    device: list[Loop],
) -> str | None:
    """Why offloading `loop` breaks the hold of `fn`'s own array, or None if proved.

    `device`: the subprogram's other offloaded nests, blanked as device code.
    """
    name = use.name.lower()
    events = hold_events(analysis, fn, name)
    if not events:
        return None
    data = bytearray(analysis.source.data)
    for other in device:
        a, b = other.span.start_byte, other.span.end_byte
        data[a:b] = re.sub(rb"[^\n]", b" ", bytes(data[a:b]))
    text = bytes(data)
    start, end = loop.span.start_byte, loop.span.end_byte
    before = [e for e in events if e.at < start]
    opens = [e for e in before if e.kind in OPENS] or events
    why = f"`{use.name}` is held on the device by `{_spelled(text, opens[-1])}`"
    after = [e for e in events if e.at >= end]
    if any(e.kind == "other" for e in events):
        odd = next(e for e in events if e.kind == "other")
        return (
            f"`{use.name}` is held on the device by `{_spelled(text, odd)}`, which "
            "accls does not follow: offloaded, its data clauses would move nothing"
        )
    for event in before:
        low, _, elsewhere = _walk(_code(text, event.end, start))
        if low < 0 or elsewhere:
            return why + ": an event of the hold runs on some paths to the loop only"
    if not _balanced(analysis, fn, loop, events):
        return why + ": a loop around it opens and ends the hold unevenly"
    count = 0
    for event in before:
        if event.kind in OPENS:
            count += 1
        elif event.kind in ("copyout", "delete"):
            count = 0 if event.finalize else max(0, count - 1)
    if count == 0:
        return None  # not held where the loop runs
    if count > 1:
        return why + f": it is held {count} times there, so no copy-out brings back"
    last = before[-1]
    if not _quiet(_code(text, last.end, start), name):
        return why + ": host code touches it between that and the loop"
    coherent = (
        last.kind in ("copyin", "device", "self")
        or _defines(use)
        or any(
            last.end <= o.span.start_byte
            and o.span.end_byte <= start
            and any(
                u.name.lower() == name and _defines(u)
                for u in loop_array_uses(o, analysis)
            )
            for o in device
        )
    )
    if not coherent and (use.read or use.read_first):
        return why + ": its device copy is not the host's when the loop starts"
    if not after:
        return why + ", with no end in this subprogram after the loop"
    nxt = after[0]
    low, final, elsewhere = _walk(_code(text, end, nxt.at))
    if final != low or elsewhere:
        return why + ": what ends it after the loop runs on some paths only"
    if not _quiet(_code(text, end, nxt.at), name):
        return why + ": host code touches it between the loop and the end of the hold"
    if use.written and nxt.kind not in _BACK:
        return why + ": what the loop would write never comes back to the host"
    return None


def _spelled(text: bytes, event: HoldEvent) -> str:
    """The event's text, on one line."""
    return " ".join(text[event.at : event.end].decode("utf-8", "replace").split())


def _balanced(
    analysis: FileAnalysis, fn: Function, loop: Loop, events: list[HoldEvent]
) -> bool:
    """Every `do` around `loop` opens as many holds of the array as it ends."""
    for outer in analysis.source.loops():
        if outer.function != fn.name or outer is loop:
            continue
        a, b = outer.span.start_byte, outer.span.end_byte
        if not (a <= loop.span.start_byte and loop.span.end_byte <= b):
            continue
        inside = [e for e in events if a <= e.at < b]
        opens = sum(e.kind in OPENS for e in inside)
        ends = sum(e.kind in ("copyout", "delete") for e in inside)
        if opens != ends:
            return False
    return True
