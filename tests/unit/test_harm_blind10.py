"""The tenth harm blind batch: multi-file mini-apps, scored file by file.

tests/fixtures/harm_blind10 holds programs of a few `.c` files and a header
each, their loops marked `/* expert: parallel */` or `/* trap: REASON */` (see
its README), the traps aimed at call-site proofs across files, parameter
ranges, callee slices, row tables, fields set once, globals one function
writes and function summaries. Each file is annotated as `accls annotate --all
--project FOLDER` would, unvalidated (validation only withdraws): no pragma on
a trap loop, one on every expert loop. Expert loops still missed are strict
xfails keyed by `folder/file:line`, with the reason accls gives.
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

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind10"
_FILES = project_files(BATCH)
_MISSED: dict[str, str] = {
    "s01_neighbor_list/nlist.c:8": (
        "`nbr[i * MAXN + c]` with a counter `c` that advances only in some "
        "iterations of the inner loop: the row `i` is not seen to bound it"
    ),
    "s03_qstate/gates.c:19": (
        "the pair indices `i0`, `i1` are bit manipulations of `k` (`<<`, `|`, "
        "`&`): not modelled as distinct per iteration"
    ),
    "s04_image_pyramid/main.c:13": (
        "`blur_row(row, row + 1, ..)` writes `row + 1`: a call passing a pointer "
        "set in the body is taken as shared, though rows are 8 apart"
    ),
    "s04_image_pyramid/main.c:27": (
        "the enclosing level loop (`l`, 4 levels) gets `parallel for "
        "reduction(+:s)` instead"
    ),
    "s04_image_pyramid/pyramid.c:15": (
        "`src` and `dst` are rows of the struct's table `p->lv` passed from "
        "`pyr_build`'s loop: pointers read from one table may overlap"
    ),
    "s04_image_pyramid/pyramid.c:25": (
        "`coarse` and `fine` are `p.lv[2]` and `p.lv[1]` from `main`: rows of a "
        "struct's table are not proved apart at the call sites"
    ),
    "s05_river_routing/net.c:9": (
        "`r->q` and `r->qnew`, each its own `malloc` just above, are members "
        "read through `r`, which may point anywhere: the stores just before the "
        "loop are not taken as the members' values"
    ),
    "s07_reservoir_wells/grid.c:38": (
        "`t` is a parameter: the rows of `rows_make`'s table are not followed "
        "through the call `rows_fill(t, ..)`"
    ),
    "s07_reservoir_wells/main.c:20": (
        "`well_flow(&wl[w], ..)` writes through the members `perf`/`flow`, each "
        "well's own `malloc` (wells.c): members are not proved apart per element"
    ),
    "s08_supernode/snode.c:4": (
        "`lv[p]` over `colptr[j] .. colptr[j + 1]`: column segments of an index "
        "array are not known to be increasing"
    ),
    "s08_supernode/snode.c:12": (
        "`lv[p]` over `colptr[j] .. colptr[j + 1]`: column segments of an index "
        "array are not known to be increasing"
    ),
    "s09_lattice_sweeps/main.c:14": (
        "`equilibrium` (collide.c) loops in a `FOR_DIRS(d) { .. }` block, which "
        "the parser reads as a definition: its body is not read, no summary"
    ),
    "s09_lattice_sweeps/stream.c:4": (
        "`f` and `fnew` are `main`'s blocks swapped each step (`tmp = f; f = "
        "fnew; fnew = tmp`): swapped pointers are not proved apart at the calls"
    ),
    "s09_lattice_sweeps/stream.c:13": (
        "`f` (swapped each step) against `rho` and `u`: swapped pointers are "
        "not proved apart at the call sites"
    ),
}


@pytest.mark.parametrize("key", _FILES)
def test_no_pragma_on_a_trap_loop(key: str) -> None:
    assert not trap_hits(BATCH, key)


@pytest.mark.parametrize(("key", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(key: str, row: int) -> None:
    assert expert_parallelised(BATCH, key, row)
