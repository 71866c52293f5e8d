"""The first harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind1 holds app-shaped programs whose loops are marked
`/* expert: parallel */` or `/* trap: REASON */` (see its README). The
suggester runs in process, unvalidated (validation only withdraws, so a trap
loop left alone here is left alone by `accls annotate` too). Expert loops still
missed are strict xfails keyed by `file:line`, with the reason accls gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.harm_batch import expert_params, shared_rows, trap_hits

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


@pytest.mark.parametrize("name", _PROGRAMS)
def test_no_pragma_on_a_trap_loop(name: str) -> None:
    assert not trap_hits(BATCH / name)


@pytest.mark.parametrize(("name", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(name: str, row: int) -> None:
    assert row in shared_rows(BATCH / name)
