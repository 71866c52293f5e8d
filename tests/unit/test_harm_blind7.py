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
_COLUMN = (
    "`a[k][p]` with the parameter `p`: nothing in the function bounds `p` to "
    "[0, N), so a column below 0 would reach the previous row; every call passes "
    "a pivot index from loops over [0, N), but call sites give no ranges"
)
_MISSED: dict[str, str] = {
    "m02_jacobi_eigen.c:11": _COLUMN,
    "m02_jacobi_eigen.c:27": _COLUMN,
    "m03_sph_density.c:72": (
        "`struct fields good = {store, store + NP}`: fields set by a brace "
        "initializer are not links of a carved buffer (assignments `s.f = ..` are)"
    ),
    "m03_sph_density.c:76": (
        "`kick(&good, i, dt)` reads `f->ax[i]` through pointer fields of a struct "
        "passed by address: the callee is not inlined, and `&good` counts as a write"
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
