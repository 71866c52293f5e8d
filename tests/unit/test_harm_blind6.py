"""The sixth harm blind batch: multi-file mini-apps, scored file by file.

tests/fixtures/harm_blind6 holds programs of a few `.c` files and a header each,
their loops marked `/* expert: parallel */` or `/* trap: REASON */` (see its
README), the traps aimed at the proofs across files. Each file is annotated as
`accls annotate --all --project FOLDER` would, unvalidated (validation only
withdraws): no pragma on a trap loop, one on every expert loop. Expert loops
still missed are strict xfails keyed by `folder/file:line`, with the reason
accls gives.
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

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind6"
_FILES = project_files(BATCH)
_CARVED = (
    "the fields of `struct State` are set from one pool at offsets `NX` apart "
    "in grid.c; what a pointer field holds is not an argument origin, so the "
    "calls' arguments are not proved apart"
)
_MISSED: dict[str, str] = {
    "s01_shallow_water/fluxes.c:11": f"`f` and `hu`: {_CARVED}",
    "s01_shallow_water/fluxes.c:17": f"`f`, `h` and `hu`: {_CARVED}",
    "s01_shallow_water/grid.c:9": (
        "`s->h` and `s->hu` are set from one `pool` just above, at offsets 0 "
        "and `NX`, with the loop running below `NX`: fields carved from one "
        "object are not proved apart by their ranges"
    ),
    "s01_shallow_water/main.c:15": f"`s.h` and `s.fh`: {_CARVED}",
    "s01_shallow_water/main.c:18": f"`s.hu` and `s.fhu`: {_CARVED}",
    "s03_seismic_wave/main.c:16": (
        "`w.cur` and `w.vel` are set from `pool + n` and `pool + 3 * n` in "
        "carve.c: fields carved from one pool are not proved apart"
    ),
    "s04_climate_column/main.c:8": (
        "`column_alloc(&cols[j])` (columns.c) writes the fields of `cols[j]` "
        "through a pointer argument"
    ),
    "s04_climate_column/main.c:11": (
        "`cols[j].t` and `cols[j].q` are pointers each set from its own "
        "`malloc` in columns.c: the fields of an array of structs are not known "
        "to be apart"
    ),
    "s04_climate_column/main.c:17": (
        "`radiation(&cols[j])` and `diffuse(&cols[j])` (physics.c) write "
        "through `cols[j].t` and `cols[j].tnew`: not known apart from the other "
        "columns' fields"
    ),
    "s07_nbody_cells/main.c:18": (
        "`accel_body(&B, &C, i, &B.ax[i], &B.ay[i])` (force.c): the addresses "
        "of `B` and `C` passed to a callee are taken as reaching a private copy, "
        "though neither is written by the loop"
    ),
}
# Refused for the right reason, so not expert loops accls should recover:
# layers.c's `relu` (line 15) and `layernorm`'s last loop (line 37) are called
# through the table `g_layers` (net.c), so their callers are unknown, and
# `libjoin.c`'s `probe_all` (line 22) is exported by a shared library.
_RIGHTLY_REFUSED = {
    "s05_nn_layers/layers.c:15": "called through `g_layers` (net.c): callers unknown",
    "s05_nn_layers/layers.c:37": "called through `g_layers` (net.c): callers unknown",
    "s06_hash_join/libjoin.c:22": "libjoin.so (Makefile -shared) is exported",
}


@pytest.mark.parametrize("key", _FILES)
def test_no_pragma_on_a_trap_loop(key: str) -> None:
    assert not trap_hits(BATCH, key)


@pytest.mark.parametrize(
    ("key", "row"), expert_params(BATCH, {**_MISSED, **_RIGHTLY_REFUSED})
)
def test_expert_loop_gets_a_pragma(key: str, row: int) -> None:
    assert expert_parallelised(BATCH, key, row)
