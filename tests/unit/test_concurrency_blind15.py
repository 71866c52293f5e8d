"""The fifteenth blind batch: every program's verdict, and the racy ones' pairs.

tests/fixtures/races_blind15 holds programs shaped like application code with
race and pair headers, scored as `support.blind_batch` says. Programs the model
still misses are strict xfails: fixing one makes its test fail until it is
removed from `_MISSED`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.blind_batch import assert_verdict, program_params, programs

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "races_blind15"
_MISSED: dict[str, str] = {
    "r01_wavefront_blocks_missing_left_depend.c": (
        "the blocks' order is carried by sentinel `depend` items (`done[bi][bj]`), "
        "not by the cells the callee reads"
    ),
    "r02_edge_taskloops_nogroup_no_taskwait.c": (
        "the taskloops are orphaned in callees: a callee's taskloop is not placed "
        "at its call (the inline form, rows flattened `y * w + x` too, is found)"
    ),
    "r03_tree_heights_taskyield.c": (
        "the parent's read in `finish_node` is `n->left ? n->left->height : 0`: "
        "a read under a guard is not placed at the call, and that the task's "
        "write (`annotate` returns on a null node) happens under the same test "
        "is not related (without the guard the pair 38/42 is found)"
    ),
    "r07_heat_blocks_sync_after_copy_only.c": (
        "the blocks are made by hand from the thread number in a callee returning "
        "a structure; the barrier is in a callee"
    ),
    "r09_tiled_blur_in_place.c": (
        "the tile helper's bounds come from calls (`imin`, `imax`) and its "
        "planes are two-dimensional array parameters"
    ),
}
_PROGRAMS = programs(BATCH)


@pytest.mark.parametrize("name", program_params(BATCH, _MISSED))
def test_blind15_program(name: str) -> None:
    assert_verdict(BATCH, name)


def test_batch_is_balanced() -> None:
    racy = [n for n in _PROGRAMS if n.startswith("r")]
    assert len(_PROGRAMS) == 24
    assert len(racy) == 12
