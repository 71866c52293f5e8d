"""The seventh harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind7 holds one-file programs whose traps aim at the
newest proofs (callees inlined at the call site, carved buffers, pointer
tables, call-site proofs; see its README). The suggester runs in process,
unvalidated (validation only withdraws, so a trap loop left alone here is left
alone by `accls annotate` too). Expert loops still missed are strict xfails
keyed by `file:line`, with the reason accls gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.harm_batch import expert_params, shared_rows, trap_hits

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind7"
_PROGRAMS = sorted(p.name for p in BATCH.glob("*.c"))
_MISSED: dict[str, str] = {
    "m03_sph_density.c:72": (
        "`good = {store, store + NP}` has its address taken later "
        "(`kick(&good, ..)`), so a callee may re-point its fields: they are no "
        "links of a carved buffer"
    ),
    "m03_sph_density.c:76": (
        "`kick(&good, i, dt)` reads `f->ax[i]` through pointer fields of a struct "
        "passed by address: the callee is not inlined, and `&good` counts as a write"
    ),
    "m13_reaction_diffusion.c:68": (
        "`cells[i].flux = &shared_flux` takes the global scalar's address, which "
        "reads as an update of `shared_flux` carried between iterations"
    ),
    "m06_csr_transpose.c:32": (
        "`col[rptr[i] + k]`: rows of a prefix-summed offset table; the subscripts "
        "are data"
    ),
}


@pytest.mark.parametrize("name", _PROGRAMS)
def test_no_pragma_on_a_trap_loop(name: str) -> None:
    assert not trap_hits(BATCH / name)


@pytest.mark.parametrize(("name", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(name: str, row: int) -> None:
    assert row in shared_rows(BATCH / name)
