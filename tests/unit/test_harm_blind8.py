"""The eighth harm blind batch: multi-file mini-apps, scored file by file.

tests/fixtures/harm_blind8 holds programs of a few `.c` files and a header each,
their loops marked `/* expert: parallel */` or `/* trap: REASON */` (see its
README), the traps aimed at parameter ranges, carved blocks, brace-initialised
fields, pointer tables, callee slices, macro windows, the runs-once rule and
`float` totals. Each file is annotated as `accls annotate --all --project
FOLDER` would, unvalidated (validation only withdraws): no pragma on a trap
loop, one on every expert loop. Expert loops still missed are strict xfails
keyed by `folder/file:line`, with the reason accls gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.harm_projects import (
    expert_parallelised,
    expert_params,
    project_files,
    trap_hits,
)

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind8"
_FILES = project_files(BATCH)
_LEVELS = (
    "the arrays of `main`'s tables `u[l]` and `f[l]` (each row its own "
    "`calloc`) are passed as `double *` parameters: pointers read from a "
    "table are not proved apart at the call sites"
)
_MISSED: dict[str, str] = {
    "s02_traffic_ca/road.c:5": (
        "`r->cur[i]` (an `int`) may overlap `r->n`, the loop's bound: `Road.cur` "
        "is set from a parameter in carve.c"
    ),
    "s03_band_cholesky/factor.c:24": (
        "`a[i * n + k]` with `k` from `lo = j - BW < 0 ? 0 : j - BW`: the "
        "column part is not proved within `[0, n)` through the conditional"
    ),
    "s04_fdtd_pml/levels.c:6": (
        "`lev[1]` is stored again later (`lev[1] = lev[0] + p`), after this "
        "loop: a table stored anywhere is not read entry by entry"
    ),
    "s04_fdtd_pml/levels.c:26": (
        "the table `t` is swapped after each step: its entries are stored "
        "again, so `t[0]` and `t[1]` are not known apart"
    ),
    "s05_epidemic_abm/main.c:19": (
        "`agent_expose(&ag[i])` (agent.c) writes `a->load` and reads through "
        "the pointer member `a->ward_load`, which might reach another agent"
    ),
    "s06_multigrid_vcycle/grids.c:4": f"`r`, `u` and `f`: {_LEVELS}",
    "s06_multigrid_vcycle/grids.c:12": f"`coarse` and `fine`: {_LEVELS}",
    "s06_multigrid_vcycle/grids.c:19": f"`fine` and `coarse`: {_LEVELS}",
    "s06_multigrid_vcycle/segments.c:6": f"`u`, `uold` and `f`: {_LEVELS}",
}


@pytest.mark.parametrize("key", _FILES)
def test_no_pragma_on_a_trap_loop(key: str) -> None:
    assert not trap_hits(BATCH, key)


@pytest.mark.parametrize(("key", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(key: str, row: int) -> None:
    assert expert_parallelised(BATCH, key, row)
