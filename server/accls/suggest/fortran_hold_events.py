"""Fortran: a subprogram's holds of one array, as events in source order.

The runtime's calls (`call acc_copyin(a)`, `acc_create`, `acc_copyout`,
`acc_delete`, their `_finalize` forms, `acc_update_device`, `acc_update_self`)
and the data directives (`!$acc enter data copyin(a)`, `exit data`, `update`)
that name the array whole. Anything else that names it in a directive or a
runtime data call (a `data` construct, `declare`, an `_async` or `_with_len`
call, an `if`/`async` clause, a part of the array) is an event of kind
`other`: no proof is made past it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis import FileAnalysis
from accls.analysis.data_clauses import split_top
from accls.frontend import Function
from accls.suggest.runtime_events import RUNTIME_EVENTS
from accls.suggest.runtime_holds import runtime_data_calls

__all__ = ["OPENS", "HoldEvent", "hold_events"]

OPENS = frozenset({"copyin", "create"})
# The routine -> the clause it stands for (C reads the same table).
_CALLS = {name: clause for name, (_, clause) in RUNTIME_EVENTS.items()}
# Per directive, its clauses that are events, and the kind of each.
_CLAUSES = {
    "enter data": {
        "copyin": "copyin",
        "pcopyin": "copyin",
        "present_or_copyin": "copyin",
        "create": "create",
        "pcreate": "create",
        "present_or_create": "create",
    },
    "exit data": {"copyout": "copyout", "delete": "delete"},
    "update": {"device": "device", "self": "self", "host": "self"},
}
_DIRECTIVE = re.compile(
    rb"^[ \t]*!\$(acc|omp)[ \t&]+((?:[^\n]*&[ \t]*\r?\n[ \t]*!\$(?:acc|omp)&?)*[^\n]*)",
    re.IGNORECASE | re.MULTILINE,
)
_CLAUSE = re.compile(r"(\w+)\s*(?:\(((?:[^()]|\([^()]*\))*)\))?")
_ITEM = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*$", re.S)


@dataclass(frozen=True, slots=True)
class HoldEvent:
    """One event of an array's hold: where, and what it does."""

    at: int
    end: int
    kind: str  # copyin, create, copyout, delete, device, self, or other
    finalize: bool = False


def _whole(fn: Function, name: str, section: str | None) -> bool:
    """The item names every element: `a`, `a(:)`, or `a(1:n)` as declared."""
    if section is None:
        return True
    var = fn.lookup(name)
    if var is None or not var.dims:
        return False
    parts = [p.replace(" ", "").lower() for p in split_top(section)]
    if len(parts) != len(var.dims):
        return False
    lows = var.lower_bounds or ("1",) * len(var.dims)
    for part, dim, low in zip(parts, var.dims, lows, strict=False):
        if part == ":":
            continue
        if dim is None or part != f"{low}:{dim}".replace(" ", "").lower():
            return False
    return True


def _directive_events(fn: Function, data: bytes, name: str) -> list[HoldEvent]:
    """The events of `fn`'s directives that name `name`."""
    out: list[HoldEvent] = []
    start, end = fn.span.start_byte, fn.span.end_byte
    for match in _DIRECTIVE.finditer(data, start, end):
        joined = match.group(2).decode("utf-8", "replace")
        body = re.sub(r"&[ \t]*\r?\n[ \t]*!\$(?:acc|omp)&?", " ", joined)
        if not re.search(rf"\b{re.escape(name)}\b", body, re.IGNORECASE):
            continue
        words = body.lower().split()
        head = (
            " ".join(words[:2])
            if words[:2] in (["enter", "data"], ["exit", "data"])
            else words[0]
            if words
            else ""
        )
        table = _CLAUSES.get(head) if match.group(1).lower() == b"acc" else None
        clauses = _CLAUSE.findall(body[len(head) :]) if table else []
        plain = table is not None and not any(
            c.lower() in ("if", "async") for c, _ in clauses
        )
        finalize = any(c.lower() == "finalize" for c, _ in clauses)
        kinds: list[str] = []
        for clause, args in clauses:
            for item in split_top(args or ""):
                found = _ITEM.match(item)
                if found is None or found.group(1).lower() != name:
                    continue
                kind = (table or {}).get(clause.lower(), "other")
                ok = plain and _whole(fn, found.group(1), found.group(2))
                kinds.append(kind if ok else "other")
        for kind in kinds or ["other"]:
            out.append(HoldEvent(match.start(), match.end(), kind, finalize))
    return out


# The bytes of one element, from the declaration's explicit kind.
_KIND_BYTES = re.compile(
    rb"\b(?:real|integer|complex)\s*(?:\*\s*(\d+)|\(\s*(?:kind\s*=\s*)?(\d+)\s*\))",
    re.I,
)


def _element_bytes(fn: Function, name: str, data: bytes) -> int | None:
    """The bytes of one element of `name`, when its declaration spells its kind."""
    var = fn.lookup(name)
    if var is None or var.span is None:
        return None
    start = data.rfind(b"\n", 0, var.span.start_byte) + 1
    found = _KIND_BYTES.search(data[start : var.span.start_byte])
    if found is None:
        return None
    size = int(found.group(1) or found.group(2))
    complex_ = found.group(0).lower().startswith(b"complex")
    return 2 * size if complex_ and found.group(2) else size


def _whole_call(
    fn: Function, data: bytes, item: re.Match[str], rest: tuple[str, ...]
) -> bool:
    """The call's array argument (and byte count) covers every element.

    `acc_copyin(a)`, `acc_copyin(a(1:n))` as declared, or the `_with_len`
    form `acc_copyin(a(1), n * 8)`: the first element of a one-dimensional
    array and its extent times the bytes its declared kind spells.
    """
    name, section = item.group(1), item.group(2)
    if not rest:
        return _whole(fn, name, section)
    var = fn.lookup(name)
    if len(rest) != 1 or var is None or len(var.dims) != 1 or var.dims[0] is None:
        return False
    low = (var.lower_bounds or ("1",))[0]
    if section is not None and section.replace(" ", "").lower() != low.lower():
        return False
    size = _element_bytes(fn, name, data)
    count = rest[0].replace(" ", "").lower()
    dim = var.dims[0].replace(" ", "").lower()
    return size is not None and count in (f"{dim}*{size}", f"{size}*{dim}")


def hold_events(analysis: FileAnalysis, fn: Function, name: str) -> list[HoldEvent]:
    """The events of `fn` on the array `name` (lower case), in source order."""
    data = analysis.source.data
    out = _directive_events(fn, data, name)
    start, end = fn.span.start_byte, fn.span.end_byte
    for call in runtime_data_calls(analysis):
        at = call.span.start_byte
        if not start <= at < end or not call.args:
            continue
        found = _ITEM.match(call.args[0])
        if found is None or found.group(1).lower() != name:
            continue
        routine = call.name.lower()
        kind = _CALLS.get(routine, "other")
        if not _whole_call(fn, data, found, call.args[1:]):
            kind = "other"
        elif data[data.rfind(b"\n", 0, at) + 1 : at].strip():
            kind = "other"  # not a statement of its own: `if (c) call acc_copyout(a)`
        out.append(
            HoldEvent(at, call.span.end_byte, kind, routine.endswith("_finalize"))
        )
    return sorted(out, key=lambda e: e.at)
