"""The third harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind3 holds mini-app kernels whose loops are marked
`/* expert: parallel */` or `/* trap: REASON */` (see its README). The
suggester runs in process, unvalidated (validation only withdraws, so a trap
loop left alone here is left alone by `accls annotate` too). Expert loops still
missed are strict xfails keyed by `file:line`, with the reason accls gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.harm_batch import expert_params, shared_rows, trap_hits

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind3"
_PROGRAMS = sorted(p.name for p in BATCH.glob("*.c"))
_MISSED: dict[str, str] = {
    "k03_smith_waterman.c:43": (
        "the wavefront's column `d - i` stays in [1, LB] only through the bounds "
        "`lo`/`hi` set by conditional expressions, which are not modelled"
    ),
    "k04_fft_butterfly.c:47": (
        "butterfly groups `k += len` own `[k, k + len)` only because "
        "`half = len >> 1`: the relation of two scalars of the stage is not known"
    ),
    "k06_sptrsv.c:65": (
        "rows of one level come from the permutation `order`: data the program "
        "does not show to hold no repeats"
    ),
    "k10_neighbor_list.c:67": (
        "`visit(i, &nlist[noff[i]])` fills rows of a prefix-summed offset table: "
        "the subscripts are data"
    ),
    "k11_bitonic.c:20": (
        "`partner = i ^ j` with `partner > i`: an exclusive-or pairing the "
        "dependence test does not model"
    ),
    "k11_bitonic.c:30": (
        "`i + 1 < N` is not OpenMP's canonical test `i < ub`; an expert rewrites "
        "it as `i < N - 1`"
    ),
    "k12_redblack_gs.c:10": (
        "the colour's start `1 + (i + colour) % 2` with step 2: rows of one "
        "colour read only the other colour, a parity the test does not model"
    ),
}


@pytest.mark.parametrize("name", _PROGRAMS)
def test_no_pragma_on_a_trap_loop(name: str) -> None:
    assert not trap_hits(BATCH / name)


@pytest.mark.parametrize(("name", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(name: str, row: int) -> None:
    assert row in shared_rows(BATCH / name)
