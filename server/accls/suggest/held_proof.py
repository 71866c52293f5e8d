"""The proof that offloaded code keeps the user's hold of an array coherent.

Between the directive that starts the hold and the one that ends it (see
`held_copies`): nothing else names the array, the device copy is the host's
where the code starts, and what it writes comes back where the hold ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse, loop_array_uses
from accls.analysis.data_clauses import Section, clause_sections
from accls.analysis.device_coherence import function_directives
from accls.frontend import Directive, Function, Loop
from accls.suggest.held_spans import hold_around
from accls.suggest.held_text import (
    TO_DEVICE,
    TO_HOST,
    aliased,
    copied,
    depths,
    quiet_between,
    same,
    scratch,
    update,
)
from accls.suggest.lifetime_uses import KernelIndex
from accls.suggest.region_present import covers_use
from accls.suggest.runtime_events import modeled_events

__all__ = ["Scene", "held", "scene"]

_COPY_IN = frozenset({"copy", "copyin"})
_COPY_OUT = frozenset({"copy", "copyout"})


def _defines(use: ArrayUse, sections: list[Section]) -> bool:
    """The nest writes every element of the hold's sections, reading none first."""
    return (
        not use.read_first
        and not use.read
        and use.exact_cover
        and bool(sections)
        and all(same(s, use) for s in sections)
    )


def held(
    analysis: FileAnalysis,
    fn: Function,
    site: tuple[int, int, int],
    use: ArrayUse,
    scene: Scene,
    *,
    call: bool = False,
) -> str | None:
    """Why offloading breaks the user's hold of `use`, or None when it is proved.

    `site`: the offloaded code's start and end offsets and its line; `call`:
    it is a call of a kernel function (the arguments it passes are its own).
    """
    data, name = analysis.source.data, use.name
    start, end, line = site
    hold = hold_around(data, (start, end), name, scene.directives)
    if hold is None:
        return None
    row = data.count(b"\n", 0, hold.at) + 1
    called = _routine(data, hold.at)  # a runtime call read as the directive
    what = f"{called.decode()}()" if called.startswith(b"acc_") else hold.opening.name
    why = f"`{name}` is on the device from the `{what}` at line {row}"
    if hold.closing is None or hold.until < end:
        return why + (
            ", with no end in this function: offloaded, the loop would use the "
            "device copy, which the host's copy may not match"
        )
    # A hold opened on some paths only is fine (where it is not, the loop's
    # clauses move the data); one ended on some paths only keeps the loop's
    # writes on the device on the others.
    low, final = depths(data, start, hold.until)
    if final != low:
        return why + (
            ": the hold ends in a block the loop is not in, so on some path what "
            "the loop writes stays on the device"
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
    if _copied(scene, fn, name, data, (start, end) if call else None) or not (
        quiet_between(quiet, first, start, name, aliased=many)
        and quiet_between(quiet, end, last, name, aliased=many)
    ):
        return why + (
            f": host code touches it between that and the loop at line "
            f"{line} or the end of the hold, so the device and host "
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
class Scene:
    """The function's directives, and the device code beside the offloaded code."""

    directives: list[tuple[int, Directive]]
    device: tuple[Loop, ...]  # the other nests offloaded: device code, blanked
    blanked: bytes  # the file with those nests and the kernel calls blanked out
    # Calls of kernel functions (every loop offloaded, no host code on the
    # caller's arrays): device code too, their arguments no copies; and the
    # runtime's data calls read as directives, which keep no copy either.
    calls: tuple[tuple[int, int], ...] = ()
    copies: dict[str, bool] = field(default_factory=dict)  # `copied`, by name


def _copied(
    scene: Scene, fn: Function, name: str, data: bytes, site: tuple[int, int] | None
) -> bool:
    """`copied` of the name, the kernel calls' arguments apart (and the site's)."""
    if site is not None and not any(a <= site[0] < b for a, b in scene.calls):
        return copied(fn, name, data, (*scene.calls, site))
    if name not in scene.copies:
        scene.copies[name] = copied(fn, name, data, scene.calls)
    return scene.copies[name]


def scene(
    analysis: FileAnalysis,
    fn: Function,
    sentinel: str,
    device: tuple[Loop, ...],
    index: KernelIndex,
) -> Scene:
    """The function's directives, with its device code blanked."""
    text = bytearray(analysis.source.data)
    calls = tuple(
        (c.span.start_byte, c.span.end_byte)
        for c in fn.call_sites
        if index.is_kernel(c.name)
    )
    spans = [(o.span.start_byte, o.span.end_byte) for o in device] + list(calls)
    for a, b in spans:
        text[a:b] = re.sub(rb"[^\n]", b" ", bytes(text[a:b]))
    directives = function_directives(analysis.source, fn, sentinel)
    if sentinel == "acc":
        # The runtime's data calls are directives here: their names blanked (no
        # call), their arguments kept (host code naming the array for others).
        events = modeled_events(analysis, fn)
        for at, _ in events:
            size = len(_routine(analysis.source.data, at))
            text[at : at + size] = b" " * size
        calls += tuple(
            (d.span.start_byte, d.span.end_byte) for _, d in events if d.span
        )
        directives = sorted([*directives, *events], key=lambda e: e[0])
    return Scene(directives, device, bytes(text), calls)


def _routine(data: bytes, at: int) -> bytes:
    """The routine's name of the call at `at`."""
    found = re.match(rb"[A-Za-z_]\w*", data[at : at + 64])
    return found.group(0) if found else b""
