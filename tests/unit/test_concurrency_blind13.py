"""The thirteenth blind batch: every program's verdict, and the racy ones' pairs.

tests/fixtures/races_blind13 holds programs shaped like application code with
race and pair headers, scored as `support.blind_batch` says. Programs the model
still misses are strict xfails: fixing one makes its test fail until it is
removed from `_MISSED`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.blind_batch import assert_verdict, program_params, programs

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "races_blind13"
_MISSED: dict[str, str] = {
    "r01_histogram_member_no_reduction.c": (
        "an indirect member update is a warning: the pigeonhole (more iterations "
        "than `sum` has elements) needs a trip count the loop shows, not `p->n`"
    ),
}
_PROGRAMS = programs(BATCH)


@pytest.mark.parametrize("name", program_params(BATCH, _MISSED))
def test_blind13_program(name: str) -> None:
    assert_verdict(BATCH, name)


def test_batch_is_balanced() -> None:
    racy = [n for n in _PROGRAMS if n.startswith("r")]
    assert len(_PROGRAMS) == 24
    assert len(racy) == 12
