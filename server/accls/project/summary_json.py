"""Function summaries to and from JSON, for the index's cache folder."""

from __future__ import annotations

from typing import Any

from accls.analysis import Definition, FieldFact, Summary

__all__ = [
    "definition_from_json",
    "definition_to_json",
    "field_fact_from_json",
    "field_fact_to_json",
]


def field_fact_to_json(fact: FieldFact) -> list[str]:
    """A field fact as a list of strings."""
    return [fact.kind, fact.key, fact.field, fact.target, fact.place, fact.shown]


def field_fact_from_json(raw: list[Any]) -> FieldFact:
    """The fact `field_fact_to_json` wrote; ValueError when malformed."""
    if not isinstance(raw, list) or len(raw) != 6:
        raise ValueError("a field fact is a list of six strings")
    kind, key, name, target, place, shown = (str(x) for x in raw)
    return FieldFact(kind, key, name, target, place, shown)


def definition_to_json(found: Definition) -> dict[str, Any]:
    """A definition as plain JSON values."""
    summary = found.summary
    return {
        "name": found.name,
        "file": found.file,
        "line": found.line,
        "why": found.why,
        "device": sorted(found.device),
        "summary": None
        if summary is None
        else {
            "writes": sorted(summary.writes),
            "reads": sorted(summary.reads),
            "globals_read": sorted(summary.globals_read),
        },
    }


def definition_from_json(raw: dict[str, Any]) -> Definition:
    """The definition `definition_to_json` wrote; KeyError/TypeError when malformed."""
    name = str(raw["name"])
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
        file=str(raw["file"]),
        line=int(raw["line"]),
        summary=summary,
        why=str(raw["why"]),
        device=frozenset(str(d) for d in raw["device"]),
    )
