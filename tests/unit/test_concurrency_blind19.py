"""The nineteenth blind batch: every program's verdict, and the racy ones' pairs.

tests/fixtures/races_blind19 holds programs shaped like application code with
race and pair headers, scored as `support.blind_batch` says. Programs the model
still misses are strict xfails: fixing one makes its test fail until it is
removed from `_MISSED`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.blind_batch import assert_verdict, program_params, programs

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "races_blind19"
_MISSED: dict[str, str] = {
    "r02_relax_struct_in_place.c": (
        "the callee's `s->dst[i]` and `s->src[i + 1]` reach one buffer only "
        "through the structure main builds in place (`{u, u, NV}`): the callee's "
        "side effects stay unknown (ACC110, info) and no field of a structure "
        "argument is followed to its caller's initializer"
    ),
}
_PROGRAMS = programs(BATCH)


@pytest.mark.parametrize("name", program_params(BATCH, _MISSED))
def test_blind19_program(name: str) -> None:
    assert_verdict(BATCH, name)


def test_batch_is_balanced() -> None:
    racy = [n for n in _PROGRAMS if n.startswith("r")]
    assert len(_PROGRAMS) == 14
    assert len(racy) == 7
