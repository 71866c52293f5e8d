"""In-process scoring of a one-file harm blind batch (see harm_markers).

The suggester runs unvalidated (validation only withdraws, so a trap loop left
alone here is left alone by `accls annotate` too). A loop counts as shared out
when it has its own pragma or a `collapse` folds it in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect, Suggestion

from support.harm_markers import markers

__all__ = ["expert_params", "programs", "shared_rows", "trap_hits"]

_SOURCES = frozenset({".c", ".cpp"})


def programs(batch: Path) -> list[Path]:
    """The batch's one-file programs, C and C++."""
    return sorted(p for p in batch.iterdir() if p.suffix in _SOURCES)


@cache
def shared_rows(path: Path) -> frozenset[int]:
    """0-based rows of the loops whose iterations the OpenMP suggestions share out."""
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(path.read_text(encoding="utf-8"), str(path), settings)
    by_id = {s.loop.id: s for s in found.suggestions}
    rows: set[int] = set()
    for s in found.suggestions:
        if _shared(s, by_id):
            rows.add(s.loop.span.start[0])
            rows.update(_folded(s))
    return frozenset(rows)


def _folded(s: Suggestion) -> list[int]:
    """Rows of the inner loops a `collapse(n)` folds in (they have no suggestion)."""
    depth = re.search(r"\bcollapse\((\d+)\)", s.pragma.render() if s.pragma else "")
    loop, out = s.loop, []
    for _ in range(int(depth.group(1)) - 1 if depth else 0):
        if len(loop.children) != 1:
            break
        loop = loop.children[0]
        out.append(loop.span.start[0])
    return out


def _shared(s: Suggestion, by_id: dict[int, Suggestion]) -> bool:
    """The loop's iterations are shared out: its own pragma, or folded by collapse."""
    if s.pragma is not None and s.withdrawn is None:
        return True
    into = by_id.get(s.collapsed_into) if s.collapsed_into is not None else None
    return into is not None and _shared(into, by_id)


def trap_hits(path: Path) -> list[str]:
    """The trap loops of the program that a suggestion shares out."""
    rows = shared_rows(path)
    return [
        f"line {m.row + 1}: {m.reason}"
        for m in markers(path.read_text(encoding="utf-8"))
        if m.kind == "trap" and m.row in rows
    ]


def expert_params(batch: Path, missed: Mapping[str, str]) -> list[object]:
    """One pytest param per expert loop of the batch; missed ones strict xfails."""
    params: list[object] = []
    for path in programs(batch):
        for m in markers(path.read_text(encoding="utf-8")):
            if m.kind != "expert":
                continue
            key = f"{path.name}:{m.row + 1}"
            why = missed.get(key)
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            params.append(pytest.param(path.name, m.row, id=key, marks=marks))
    return params
