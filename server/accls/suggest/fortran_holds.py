"""Fortran: no offload of a loop whose arrays the user's data directives may hold.

`held_copies` proves, for C, when a host loop may be offloaded inside the user's
own holds (`enter data`, `data`, `declare`, the runtime's `acc_copyin()`). In
Fortran the proof (`fortran_hold_proof`) covers an array of the loop's own
subprogram (a local array, neither pointer, target nor saved, in a subprogram
with no internal procedures), held and released in that subprogram. Any other
array is refused in a file where a data directive or a runtime data call holds
arrays: a dummy argument or a module variable may be held by a caller, or under
another name. Held, its data clauses would move nothing: the loop would write a
device copy the host never sees, or read a stale one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from accls.analysis import FileAnalysis
from accls.analysis.access_paths import base_name
from accls.analysis.array_sections import loop_array_uses
from accls.frontend import Function, Loop
from accls.suggest.fortran_hold_proof import fortran_held
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
    """`found`, with offloaded nests on arrays the file's holds may cover refused.

    A refused nest is host code again for the proof of the others: this runs
    until nothing changes.
    """
    out = list(found)
    names, line = _held_names(analysis)
    if not line:
        return out
    while True:
        device = [s.loop for s in out if offloaded_nest(s)]
        spans: list[HeldSpan] = []
        for loop in device:
            why = _why(analysis, loop, device, names, line)
            if why:
                spans.append((loop.span.start_byte, loop.span.end_byte, why))
        if not spans:
            return out
        out = [refused_in(s, spans) for s in out]


def _why(
    analysis: FileAnalysis,
    loop: Loop,
    device: list[Loop],
    names: set[str],
    line: int,
) -> tuple[str, ...]:
    """Why the holds bar offloading `loop` (empty: fine)."""
    source = analysis.source
    fn = source.function(loop.function) if loop.function else None
    if fn is None:
        return ()
    body = source.data[fn.span.start_byte : fn.span.end_byte]
    # An internal procedure may hold the subprogram's own arrays.
    inner = re.search(rb"^\s*contains\b", body, re.I | re.M) is not None
    mine = [o for o in device if o is not loop and o.function == loop.function]
    out: list[str] = []
    for use in {base_name(u.name): u for u in loop_array_uses(loop, analysis)}.values():
        name = base_name(use.name)
        if _own(fn, name, source.data) and not inner and name == use.name:
            why = fortran_held(analysis, fn, loop, use, mine)
            if why:
                out.append(why)
        elif name.lower() in names or not _own(fn, name, source.data):
            out.append(
                f"`{name}` may be held on the device by a data directive or runtime "
                f"call of this file (line {line}): offloaded, its data clauses would "
                "move nothing, and the host and device copies would drift apart"
            )
    return tuple(out)
