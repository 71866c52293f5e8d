"""Fortran: no offload of a loop whose arrays the user's data directives may hold.

`held_copies` proves, for C, when a host loop may be offloaded inside the user's
own holds (`enter data`, `data`, `declare`, the runtime's `acc_copyin()`). Its
proof reads C text; in Fortran no such proof is made, so this module refuses
instead: in a file where a data directive or a runtime data call holds arrays, a
loop is not offloaded for an array one of them names, nor for one that is not
its subroutine's own (a dummy argument or a module variable may be held by a
caller, or under another name). Held, its data clauses would move nothing: the
loop would write a device copy the host never sees, or read a stale one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from accls.analysis import FileAnalysis
from accls.analysis.access_paths import base_name
from accls.analysis.array_sections import loop_array_uses
from accls.frontend import Function
from accls.suggest.held_refusal import HeldSpan, offloaded_nest, refused_in
from accls.suggest.runtime_holds import runtime_data_calls, runtime_named
from accls.suggest.suggestion import Suggestion

__all__ = ["fortran_held_refusals"]

# A data directive that holds, with its `&` continuation lines.
_HOLD = re.compile(
    r"^[ \t]*!\$(?:acc|omp)[ \t]+(?:target[ \t]+)?(?:enter[ \t]+data|data|declare)\b"
    r"((?:[^\n]*&[ \t]*\r?\n[ \t]*!\$(?:acc|omp)&?)*[^\n]*)",
    re.IGNORECASE | re.MULTILINE,
)
_NAME = re.compile(r"[A-Za-z_]\w*")
_CLAUSE_ARGS = re.compile(r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)")


def _held_names(analysis: FileAnalysis) -> tuple[set[str], int]:
    """Names the file's holds may cover (lower case), and the first hold's line."""
    text = analysis.source.data.decode("utf-8", "replace")
    names: set[str] = set()
    lines: list[int] = []
    for match in _HOLD.finditer(text):
        for args in _CLAUSE_ARGS.findall(match.group(1)):
            names.update(n.lower() for n in _NAME.findall(args))
        lines.append(text.count("\n", 0, match.start()) + 1)
    data = analysis.source.data
    calls = runtime_data_calls(analysis)
    names.update(name.lower() for name in runtime_named(calls))
    lines.extend(data.count(b"\n", 0, call.span.start_byte) + 1 for call in calls)
    return names, min(lines, default=0)


def _own(fn: Function, name: str, data: bytes) -> bool:
    """A local array of the subroutine, neither a pointer nor a target nor saved."""
    var = fn.lookup(name)
    if var is None or var.scope != "local" or not var.dims or var.pointers:
        return False
    if var.static or var.span is None:
        return False
    start = data.rfind(b"\n", 0, var.span.start_byte) + 1
    end = data.find(b"\n", var.span.start_byte)
    line = data[start : end if end >= 0 else len(data)].lower()
    return not re.search(rb"\b(?:target|pointer|save)\b", line)


def fortran_held_refusals(
    analysis: FileAnalysis, found: Sequence[Suggestion]
) -> list[Suggestion]:
    """`found`, with offloaded nests on arrays the file's holds may cover refused."""
    out = list(found)
    names, line = _held_names(analysis)
    if not line:
        return out
    source = analysis.source
    spans: list[HeldSpan] = []
    for s in out:
        if not offloaded_nest(s):
            continue
        fn = source.function(s.loop.function) if s.loop.function else None
        if fn is None:
            continue
        arrays = loop_array_uses(s.loop, analysis)
        uses = dict.fromkeys(base_name(u.name) for u in arrays)
        why = tuple(
            f"`{name}` may be held on the device by a data directive or runtime call "
            f"of this file (line {line}): offloaded, its data clauses would move "
            "nothing, and the host and device copies would drift apart"
            for name in uses
            if name.lower() in names or not _own(fn, name, source.data)
        )
        if why:
            spans.append((s.loop.span.start_byte, s.loop.span.end_byte, why))
    return [refused_in(s, spans) for s in out]
