"""The ninth harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind9 holds one-file programs whose traps aim at the
newest proofs (row tables, carved blocks, address-taken integers, callee
slices and ranges, `float` and complex totals; see its README). The suggester
runs in process, unvalidated (validation only withdraws, so a trap loop left
alone here is left alone by `accls annotate` too). Expert loops still missed
are strict xfails keyed by `file:line`, with the reason accls gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.harm_batch import expert_params, shared_rows, trap_hits

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind9"
_PROGRAMS = sorted(p.name for p in BATCH.glob("*.c"))
_CARVED = (
    "`blk[b] = pool + b * 64`: rows carved from one block at a stride are not "
    "proved apart (only pointers carved from a block are)"
)
_COMPLEX = (
    "the C grammar knows no `_Complex`: the complex declarations are misread, so "
    "the arrays have no visible declaration (or the loop holds a syntax error)"
)
_REPOINTED = (
    "`lev[0] = cur` re-points the table's rows inside the time loop (and "
    "`memmove` later shifts them): its rows are no longer proved apart"
)
_MISSED: dict[str, str] = {
    "m03_dct_codec.c:43": _CARVED,
    "m03_dct_codec.c:49": _CARVED,
    "m03_dct_codec.c:70": (
        "`out[by * 8 + y][bx * 8 + x]` with `by = b / BW`, `bx = b % BW`: the "
        "quotient and remainder of the block index are not tied back to `b`"
    ),
    "m04_kalman_bank.c:57": (
        "`run_filter(&bank[i], ..)` writes `f->hist[t]` through a pointer field "
        "carved per filter: the callee is not proved to touch only its element"
    ),
    "m06_bvh_rays.c:79": (
        "`struct leaf *lf = &leaves[l]; lf->lo[k] = ..`: a pointer to the "
        "iteration's element reads as a write of all of `leaves`"
    ),
    "m06_bvh_rays.c:115": (
        "`const struct leaf *lf = order[l]`: pointers read from a table of "
        "pointers may reach `hitleaf`"
    ),
    "m08_complex_filter.c:16": _COMPLEX,
    "m08_complex_filter.c:22": _COMPLEX,
    "m08_complex_filter.c:27": _COMPLEX,
    "m11_shallow_water.c:54": (
        "`scale_span(s, ..)` gets a struct by value whose pointer field is a "
        "slice: the callee's writes through `s.p` are not tied to the slice"
    ),
    "m12_wave_halo.c:31": _REPOINTED,
    "m12_wave_halo.c:39": _REPOINTED,
    "m12_wave_halo.c:44": (
        "`next[x]` and `next[NG - NX + x]`: the macros' values are not used to "
        "prove the two rows apart in a pointer's subscripts"
    ),
    "m12_wave_halo.c:61": _REPOINTED,
}


@pytest.mark.parametrize("name", _PROGRAMS)
def test_no_pragma_on_a_trap_loop(name: str) -> None:
    assert not trap_hits(BATCH / name)


@pytest.mark.parametrize(("name", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(name: str, row: int) -> None:
    assert row in shared_rows(BATCH / name)
