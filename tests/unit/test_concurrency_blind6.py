"""The sixth blind batch: every program's verdict, and the racing pair of the racy ones.

tests/fixtures/races_blind6 holds whole programs with race and pair headers, scored
as `support.blind_batch` says. Programs the model still misses are strict xfails:
fixing one makes its test fail until it is removed from `_MISSED`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.blind_batch import assert_verdict, program_params, programs

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "races_blind6"
_MISSED: dict[str, str] = {
    "r17_flat_stride_short.c": (
        "a flattened row stride shorter than the row (`a[i * 8 + j]`, j < 10) is "
        "only a possible dependence"
    ),
    "r19_capture_index_neighbour.c": (
        "a subscript from an `atomic capture` counter (`buf[k - 1]`) is not "
        "followed across iterations"
    ),
    "r20_tile_bound_overlap.c": (
        "an inner bound joined with `&&` (`i <= ii + T && i < N`) is not read, so "
        "the overlap of the tiles is only a possible dependence"
    ),
}
_PROGRAMS = programs(BATCH)


@pytest.mark.parametrize("name", program_params(BATCH, _MISSED))
def test_blind6_program(name: str) -> None:
    assert_verdict(BATCH, name)


def test_batch_is_balanced() -> None:
    racy = [n for n in _PROGRAMS if n.startswith("r")]
    assert len(_PROGRAMS) == 40
    assert len(racy) == 20
