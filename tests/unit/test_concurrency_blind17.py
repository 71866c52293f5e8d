"""The seventeenth blind batch: every program's verdict, and the racy ones' pairs.

tests/fixtures/races_blind17 holds programs shaped like application code with
race and pair headers, scored as `support.blind_batch` says. Programs the model
still misses are strict xfails: fixing one makes its test fail until it is
removed from `_MISSED`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.blind_batch import assert_verdict, program_params, programs

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "races_blind17"
_MISSED: dict[str, str] = {
    "r04_sample_shuffle_copy_not_swap.c": (
        "a warning only: the index array is filled by a shuffle loop, and telling "
        "a swap (a permutation kept) from a copy (values repeated) needs the "
        "values `perm[i]` and `perm[j]` followed through the loop's statements"
    ),
}
_PROGRAMS = programs(BATCH)


@pytest.mark.parametrize("name", program_params(BATCH, _MISSED))
def test_blind17_program(name: str) -> None:
    assert_verdict(BATCH, name)


def test_batch_is_balanced() -> None:
    racy = [n for n in _PROGRAMS if n.startswith("r")]
    assert len(_PROGRAMS) == 14
    assert len(racy) == 7
