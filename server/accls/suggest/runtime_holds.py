"""Offloading a loop whose arrays the OpenACC or OpenMP runtime may hold on the device.

`acc_copyin(a, bytes)`, `acc_create`, `acc_map_data`, `acc_attach` (OpenMP:
`omp_target_associate_ptr`) make `a` present exactly as the user's `enter data`
does: a loop's data clauses then move nothing (present-or semantics), so the
offloaded loop writes a device copy the host never sees, or reads one older than
the host's, and the results change. `held_copies` follows the user's directives;
these holds are calls, whose extent this module does not follow. So, in a file
that calls the runtime's data routines, an offloaded loop is refused for an array
such a call names, and for any array that is not the loop function's own (a local
array, or a local pointer to a fresh allocation): a caller, or another function
under another name, may hold it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from accls.analysis import FileAnalysis
from accls.analysis.access_paths import base_name
from accls.frontend import Call, Function

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


def _own(fn: Function, name: str) -> bool:
    """A local array, or a local pointer to fresh memory: no other name reaches it."""
    var = fn.lookup(name)
    if var is None or var.scope != "local" or var.address_taken or var.leaves:
        return False
    return var.fresh or (bool(var.dims) and var.pointers == 0 and not var.static)


def runtime_refusals(
    analysis: FileAnalysis, fn: Function, names: Iterable[str]
) -> list[str]:
    """Why the runtime's holds bar offloading `fn`'s loop on `names` (empty: fine)."""
    calls = runtime_data_calls(analysis)
    if not calls:
        return []
    named = runtime_named(calls)
    start, end = fn.span.start_byte, fn.span.end_byte
    mine = runtime_named(c for c in calls if start <= c.span.start_byte < end)
    out: list[str] = []
    for name in dict.fromkeys(base_name(n) for n in names):
        if name in named or not _own(fn, name):
            call = mine.get(name) or named.get(name, calls[0])
            line = analysis.source.data.count(b"\n", 0, call.span.start_byte) + 1
            out.append(
                f"`{name}` may be held on the device by the runtime (`{call.name}()` "
                f"at line {line}): its data clauses would then move nothing, and the "
                "host and device copies would drift apart"
            )
    return out
