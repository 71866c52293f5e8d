"""Function summaries to and from JSON, for the index's cache folder."""

from __future__ import annotations

import sys
from typing import Any

from accls.analysis import ArgumentOverlap, Definition, FieldFact, Summary
from accls.analysis.array_sections import ArrayUse
from accls.analysis.device_kernels import DeviceKernel
from accls.analysis.pointer_slices import PointerSlice
from accls.frontend import Poly
from accls.frontend.exprs import expression_poly

__all__ = [
    "definition_from_json",
    "definition_to_json",
    "field_fact_from_json",
    "field_fact_to_json",
    "overlap_from_json",
    "overlap_to_json",
]


def overlap_to_json(found: ArgumentOverlap) -> list[Any]:
    """A call passing one object twice, as a list."""
    return [
        found.callee,
        found.first,
        found.second,
        found.caller,
        found.shown,
        list(found.via),
        found.certain,
        found.same,
    ]


def overlap_from_json(raw: Any) -> ArgumentOverlap:
    """The call `overlap_to_json` wrote; ValueError when malformed."""
    if not isinstance(raw, list) or len(raw) != 8 or not isinstance(raw[5], list):
        raise ValueError("an argument overlap is a list of eight values")
    callee, first, second, caller, shown, via, certain, same = raw
    return ArgumentOverlap(
        callee=str(callee),
        first=int(first),
        second=int(second),
        caller=str(caller),
        shown=str(shown),
        via=tuple(int(k) for k in via),
        certain=bool(certain),
        same=bool(same),
    )


def field_fact_to_json(fact: FieldFact) -> list[str]:
    """A field fact as a list of strings."""
    return [fact.kind, fact.key, fact.field, fact.target, fact.place, fact.shown]


def field_fact_from_json(raw: list[Any]) -> FieldFact:
    """The fact `field_fact_to_json` wrote; ValueError when malformed."""
    if not isinstance(raw, list) or len(raw) != 6:
        raise ValueError("a field fact is a list of six strings")
    kind, key, name, target, place, shown = (str(x) for x in raw)
    return FieldFact(kind, key, name, target, place, shown)


def _use_to_json(use: ArrayUse) -> dict[str, Any]:
    return {
        "name": use.name,
        "flags": [
            use.read,
            use.written,
            use.read_first,
            use.exact_cover,
            use.known,
        ],
        "section": use.section,
        "box": None
        if use.box is None
        else [[start.render(), length.render()] for start, length in use.box],
        "facts": [f.render() for f in use.facts],
    }


def _poly(text: Any) -> Poly:
    found = expression_poly(str(text))
    if found is None:
        raise ValueError(f"not a polynomial: {text!r}")
    return found


def _use_from_json(raw: dict[str, Any]) -> ArrayUse:
    read, written, read_first, exact, known = (bool(f) for f in raw["flags"])
    box = raw["box"]
    return ArrayUse(
        name=str(raw["name"]),
        read=read,
        written=written,
        read_first=read_first,
        section=None if raw["section"] is None else str(raw["section"]),
        exact_cover=exact,
        known=known,
        box=None
        if box is None
        else tuple((_poly(start), _poly(length)) for start, length in box),
        facts=tuple(_poly(f) for f in raw["facts"]),
    )


def _kernel_to_json(kernel: DeviceKernel | None) -> dict[str, Any] | None:
    if kernel is None:
        return None
    return {
        "dialect": kernel.dialect,
        "params": list(kernel.params),
        "arrays": list(kernel.arrays),
        "uses": [_use_to_json(u) for u in kernel.uses],
    }


def _kernel_from_json(raw: dict[str, Any] | None) -> DeviceKernel | None:
    if raw is None:
        return None
    return DeviceKernel(
        dialect=str(raw["dialect"]),
        params=tuple(str(p) for p in raw["params"]),
        arrays=tuple(bool(a) for a in raw["arrays"]),
        uses=tuple(_use_from_json(u) for u in raw["uses"]),
    )


def definition_to_json(found: Definition) -> dict[str, Any]:
    """A definition as plain JSON values."""
    summary = found.summary
    return {
        "name": found.name,
        "file": found.file,
        "line": found.line,
        "why": found.why,
        "device": sorted(found.device),
        "kernel": _kernel_to_json(found.kernel),
        "allocator": found.allocator,
        "row_table": found.row_table,
        "row_fills": list(found.row_fills),
        "row_steady": list(found.row_steady),
        "errno": [found.sets_errno, found.reads_errno],
        "slices": [
            [s.index, s.arity, s.written, s.low, s.high, s.element]
            for s in found.slices
        ],
        "summary": None
        if summary is None
        else {
            "writes": sorted(summary.writes),
            "reads": sorted(summary.reads),
            "globals_read": sorted(summary.globals_read),
        },
    }


def definition_from_json(raw: dict[str, Any]) -> Definition:
    """The definition `definition_to_json` wrote; KeyError/TypeError/ValueError."""
    # Interned: a file's name and the reasons repeat over its definitions, and
    # the names over the calls' records.
    name = sys.intern(str(raw["name"]))
    body = raw["summary"]
    summary = (
        None
        if body is None
        else Summary(
            name=name,
            writes=frozenset(int(i) for i in body["writes"]),
            reads=frozenset(int(i) for i in body["reads"]),
            globals_read=frozenset(str(g) for g in body["globals_read"]),
        )
    )
    return Definition(
        name=name,
        file=sys.intern(str(raw["file"])),
        line=int(raw["line"]),
        summary=summary,
        why=sys.intern(str(raw["why"])),
        device=frozenset(str(d) for d in raw["device"]),
        kernel=_kernel_from_json(raw.get("kernel")),
        slices=tuple(_slice_from_json(one) for one in raw["slices"]),
        allocator=bool(raw["allocator"]),
        row_table=bool(raw["row_table"]),
        row_fills=tuple(int(p) for p in raw["row_fills"]),
        row_steady=tuple(int(p) for p in raw["row_steady"]),
        sets_errno=bool(raw["errno"][0]),
        reads_errno=bool(raw["errno"][1]),
    )


def _slice_from_json(raw: list[Any]) -> PointerSlice:
    index, arity, written, low, high, element = raw
    return PointerSlice(
        index=int(index),
        arity=int(arity),
        written=bool(written),
        low=int(low),
        high=int(high),
        element=str(element),
    )
