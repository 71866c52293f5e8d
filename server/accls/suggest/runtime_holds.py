"""Offloading a loop whose arrays the OpenACC or OpenMP runtime may hold on the device.

`acc_copyin(a, bytes)`, `acc_create`, `acc_map_data`, `acc_attach` (OpenMP:
`omp_target_associate_ptr`) make `a` present exactly as the user's `enter data`
does: a loop's data clauses then move nothing (present-or semantics), so the
offloaded loop writes a device copy the host never sees, or reads one older than
the host's, and the results change. The calls `runtime_events` reads as
directives of the loop's function on its own arrays (a local array, or a local
pointer to a fresh allocation) join the user's directives in `held_proof`. Any
other call (of another function, on another array, or one it cannot read:
`acc_map_data`, the `_async` forms) bars an offloaded loop on an array it names,
and on any array that is not the loop function's own: a caller, or another
function under another name, may hold it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from accls.analysis import FileAnalysis
from accls.analysis.access_paths import base_name
from accls.analysis.array_sections import ArrayUse
from accls.frontend import Call, Directive, Function, Span
from accls.suggest.held_text import copied
from accls.suggest.runtime_events import event_refusal, modeled_events

__all__ = ["runtime_data_calls", "runtime_named", "runtime_refusals"]

# The routines that start, end or move a runtime hold (OpenACC 3.3 section 3.2).
_ACC_DATA = re.compile(
    r"^acc_(?:p(?:resent_or_)?)?(?:copyin|create|copyout|delete|map_data|unmap_data"
    r"|attach|detach|update_device|update_self|memcpy_to_device|memcpy_from_device)"
)
_OMP_DATA = frozenset({"omp_target_associate_ptr", "omp_target_disassociate_ptr"})
_NAME = re.compile(r"[A-Za-z_]\w*")


def _is_runtime_data(call: Call) -> bool:
    return bool(_ACC_DATA.match(call.name)) or call.name in _OMP_DATA


def runtime_data_calls(analysis: FileAnalysis) -> tuple[Call, ...]:
    """The file's calls of the runtime's data routines, in source order."""
    key = ("runtime data calls",)
    cached = analysis.shared.get(key)
    if isinstance(cached, tuple):
        return cached
    calls = (c for fn in analysis.source.functions for c in fn.call_sites)
    found = tuple(
        sorted(
            (c for c in calls if _is_runtime_data(c)),
            key=lambda c: c.span.start_byte,
        )
    )
    analysis.shared[key] = found
    return found


def runtime_named(calls: Iterable[Call]) -> dict[str, Call]:
    """The variables each call's host-address argument starts from, with its call."""
    out: dict[str, Call] = {}
    for call in calls:
        # `omp_target_associate_ptr(host, device, ...)` and the acc routines
        # (`acc_map_data(host, device, bytes)` too) take the host address first.
        for name in _NAME.findall(call.args[0]) if call.args else ():
            out.setdefault(name, call)
    return out


def _own(fn: Function, name: str, data: bytes, events: Sequence[Span]) -> bool:
    """A local array, or a local pointer to fresh memory: no other name reaches it.

    Handing the pointer to the runtime calls read as directives (`events`)
    leaves no other name on it.
    """
    var = fn.lookup(name)
    if var is None or var.scope != "local" or var.address_taken:
        return False
    spans = [(s.start_byte, s.end_byte) for s in events]
    if var.leaves and (not spans or copied(fn, name, data, spans)):
        return False
    return var.fresh or (bool(var.dims) and var.pointers == 0 and not var.static)


def runtime_refusals(
    analysis: FileAnalysis,
    fn: Function,
    uses: Iterable[ArrayUse],
    site: tuple[int, list[tuple[int, Directive]]],
    sentinel: str = "acc",
) -> list[str]:
    """Why the runtime's holds bar offloading `fn`'s loop on `uses` (empty: fine).

    `site`: where the loop starts, and the function's directives (the runtime
    events among them, for OpenACC: OpenMP's proof does not read them, and a
    runtime may share one table of present data between the two). A call
    `runtime_events` reads as a directive of `fn` on `fn`'s own array is left
    to the hold proof; any other call bars the arrays it names and every array
    not `fn`'s own.
    """
    calls = runtime_data_calls(analysis)
    if not calls:
        return []
    start, end = fn.span.start_byte, fn.span.end_byte
    data = analysis.source.data
    spans = [d.span for _, d in modeled_events(analysis, fn) if d.span is not None]
    events = {s.start_byte for s in spans}
    mine = runtime_named(c for c in calls if start <= c.span.start_byte < end)
    proved = {
        id(c)
        for c in calls
        if sentinel == "acc"
        and c.span.start_byte in events
        and start <= c.span.start_byte < end
        and _own(fn, c.args[0], data, spans)
    }
    open_calls = [c for c in calls if id(c) not in proved]
    named = runtime_named(open_calls)
    # The function's own array: only its own calls can name it.
    here = runtime_named(c for c in open_calls if start <= c.span.start_byte < end)
    out: list[str] = []
    for use in {base_name(u.name): u for u in uses}.values():
        name = base_name(use.name)
        own = _own(fn, name, data, spans)
        if (own and name in here) or (open_calls and not own):
            call = mine.get(name) or named.get(name, open_calls[0])
            line = data.count(b"\n", 0, call.span.start_byte) + 1
            out.append(
                f"`{name}` may be held on the device by the runtime (`{call.name}()` "
                f"at line {line}): its data clauses would then move nothing, and the "
                "host and device copies would drift apart"
            )
        elif name == use.name and (
            why := event_refusal(analysis, fn, use, site[0], site[1])
        ):
            out.append(why)
    return out
