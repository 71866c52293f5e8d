"""The fourth harm blind batch: multi-file mini-apps, scored file by file.

tests/fixtures/harm_blind4 holds programs of a few `.c` files and a header each,
their loops marked `/* expert: parallel */` or `/* trap: REASON */` (see its
README). Each file is annotated as `accls annotate --all --project FOLDER`
would, unvalidated (validation only withdraws): no pragma on a trap loop, one
on every expert loop. Expert loops still missed are strict xfails keyed by
`folder/file:line`, with the reason accls gives.
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

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind4"
_FILES = project_files(BATCH)
_MISSED: dict[str, str] = {
    "q01_fem_assembly/main.c:9": (
        "`element_stiffness(e)` (kernels.c) writes the global `kel` at `kel[e]`: "
        "a callee's global writes are not tested as the loop's own accesses"
    ),
    "q02_md_cells/main.c:10": (
        "`force_on(&s, i)` (forces.c) writes `s->f[i]` through the struct's "
        "pointer field: the address of `s` is taken and the write is not indexed"
    ),
    "q04_amr_blocks/blocks.c:23": (
        "`fine[b].u` are pointers each set from its own `calloc` in the same "
        "function: the fields of an array of structs are not known to be apart"
    ),
    "q04_amr_blocks/main.c:7": (
        "`fill_ghosts(&fine[b])` (update.c) writes through `fine[b].u`: not "
        "known apart from the other blocks' fields"
    ),
    "q04_amr_blocks/main.c:10": (
        "`smooth(&fine[b])` (update.c) writes through `fine[b].unew`: not known "
        "apart from the other blocks' fields"
    ),
    "q04_amr_blocks/main.c:13": (
        "`swap_fields(&fine[b])` (update.c) writes the fields of `fine[b]` "
        "through a pointer argument"
    ),
    "q05_ray_stacks/main.c:9": (
        "`trace(&rays[r])` (trace.c) is taken to read through every pointer "
        "field of the struct (`rays[0].next`), though it reads none of them"
    ),
    "q05_ray_stacks/main.c:18": (
        "`trace(&rays[r])` (trace.c): the same struct pointer field taken as read"
    ),
    "q05_ray_stacks/scene.c:31": (
        "`rays[r].next = &rays[(r + 1) % NRAY]` only takes an address, but is "
        "read as an access of the next element"
    ),
    "q06_spectral/main.c:18": (
        "`inverse_at(&s, n)` (transform.c) reads through the fields of `s`, "
        "pointers into one workspace: not proved apart from the global `out`"
    ),
    "q06_spectral/transform.c:4": (
        "`re` and `im` are parameters: the one call of the program (main.c) "
        "passes `s.re` and `s.im`, pointer fields that `slice` (setup.c) sets "
        "apart in one block: what a pointer field holds is not an argument origin"
    ),
    "q08_image_tiles/main.c:20": (
        "`blur_tile(&blur_t[k])` (filters.c) writes through `t->out`: a pointer "
        "field shared by every tile, its writes at `x0` offsets not followed"
    ),
}


@pytest.mark.parametrize("key", _FILES)
def test_no_pragma_on_a_trap_loop(key: str) -> None:
    assert not trap_hits(BATCH, key)


@pytest.mark.parametrize(("key", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(key: str, row: int) -> None:
    assert expert_parallelised(BATCH, key, row)
