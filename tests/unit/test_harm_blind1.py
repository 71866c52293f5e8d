"""The first harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind1 holds app-shaped programs whose loops are marked
`/* expert: parallel */` or `/* trap: REASON */` (see its README). The
suggester runs in process, unvalidated (validation only withdraws, so a trap
loop left alone here is left alone by `accls annotate` too). Expert loops still
missed are strict xfails keyed by `file:line`, with the reason accls gives.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect, Suggestion
from support.harm_markers import markers

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind1"
_PROGRAMS = sorted(p.name for p in BATCH.glob("*.c"))
_MISSED: dict[str, str] = {
    "h13_prefix_offsets.c:25": (
        "rows `[start[r], start[r + 1])` are disjoint because `start` is a prefix "
        "sum of positive lengths; the subscripts are data: an output dependence"
    ),
    "h14_linked_list.c:16": (
        "`cells[i].next = &cells[i + 7]` takes an address and stores it; the "
        "address is counted as an access of `cells[i + 7]`"
    ),
    "h22_pair_forces.c:34": (
        "Newton's third law: `g[i] +=` and `g[j] -=` with `j > i` need `atomic` "
        "on both (or an array reduction); affine subscripts that overlap across "
        "iterations are a dependence, not an atomic update"
    ),
}


@cache
def _parallel_rows(name: str) -> frozenset[int]:
    path = BATCH / name
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(path.read_text(encoding="utf-8"), str(path), settings)
    by_id = {s.loop.id: s for s in found.suggestions}
    return frozenset(
        s.loop.span.start[0] for s in found.suggestions if _shared(s, by_id)
    )


def _shared(s: Suggestion, by_id: dict[int, Suggestion]) -> bool:
    """The loop's iterations are shared out: its own pragma, or folded by collapse."""
    if s.pragma is not None and s.withdrawn is None:
        return True
    into = by_id.get(s.collapsed_into) if s.collapsed_into is not None else None
    return into is not None and _shared(into, by_id)


@pytest.mark.parametrize("name", _PROGRAMS)
def test_no_pragma_on_a_trap_loop(name: str) -> None:
    rows = _parallel_rows(name)
    text = (BATCH / name).read_text(encoding="utf-8")
    hit = [
        f"line {m.row + 1}: {m.reason}"
        for m in markers(text)
        if m.kind == "trap" and m.row in rows
    ]
    assert not hit


def _expert_params() -> list[object]:
    params: list[object] = []
    for name in _PROGRAMS:
        text = (BATCH / name).read_text(encoding="utf-8")
        for m in markers(text):
            if m.kind != "expert":
                continue
            key = f"{name}:{m.row + 1}"
            why = _MISSED.get(key)
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            params.append(pytest.param(name, m.row, id=key, marks=marks))
    return params


@pytest.mark.parametrize(("name", "row"), _expert_params())
def test_expert_loop_gets_a_pragma(name: str, row: int) -> None:
    assert row in _parallel_rows(name)
