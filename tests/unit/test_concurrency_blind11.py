"""The eleventh blind batch: every program's verdict, and the racy ones' pairs.

tests/fixtures/races_blind11 holds app-shaped programs with race and pair headers,
scored as `support.blind_batch` says. Programs the model still misses are strict
xfails: fixing one makes its test fail until it is removed from `_MISSED`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.blind_batch import assert_verdict, program_params, programs

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "races_blind11"
_MISSED: dict[str, str] = {
    "r03_histogram_plain_increment.c": (
        "a helper's `hist[b]++` with `b` computed from data: the histogram's "
        "warning (ACC109, naming the helper), as in the loop itself; the data "
        "may keep the bins apart, so no error"
    ),
    "r04_csr_transpose_scatter_plain.c": (
        "`y[col[j]] +=` through an index array: a warning (ACC109), the index "
        "array's contents are not followed"
    ),
    "r06_particle_deposit_plain.c": (
        "a helper's `rho[c] += q` with `c` computed from a particle's position: "
        "the histogram's warning (ACC109, naming the helper), no error"
    ),
    "r07_neighbour_half_list_newton.c": (
        "`force[j] -=` with `j` from the neighbour list: a doubt (ACC102)"
    ),
    "r08_tree_tasks_missing_parent_depend.c": (
        "a task reads its parent's `d[p]` with `depend(out)` on its own element "
        "only: no finding"
    ),
}
_PROGRAMS = programs(BATCH)


@pytest.mark.parametrize("name", program_params(BATCH, _MISSED))
def test_blind11_program(name: str) -> None:
    assert_verdict(BATCH, name)


def test_batch_is_balanced() -> None:
    racy = [n for n in _PROGRAMS if n.startswith("r")]
    assert len(_PROGRAMS) == 30
    assert len(racy) == 15
