"""The second harm blind batch: multi-file programs, scored file by file.

tests/fixtures/harm_blind2 holds programs of a few `.c` files and a header each,
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

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind2"
_FILES = project_files(BATCH)
_MISSED: dict[str, str] = {
    "p02_row_views/main.c:20": (
        "`row_mean(b[i], ..)` reads through rows of a table `make_rows` (rows.c) "
        "fills with `base + i * stride`: where the rows point is not followed "
        "across the call, so they may point into `means`, which the loop writes"
    ),
    "p03_slot_pool/main.c:17": (
        "`part[k]` are rows of a global table that `parts_init` (pool.c) fills "
        "with `calloc`: row stores of another file's function are not followed"
    ),
    "p08_global_views/main.c:12": (
        "`fresh_a` and `fresh_b` are global pointers each set once from `malloc` "
        "in grid.c: the global links record names they are set from, not blocks"
    ),
    "p09_row_tables/main.c:14": (
        "`own_rows` (table.c) returns a table whose every row is `calloc`ed: the "
        "wrapper is known to return a fresh table, not that its rows are fresh"
    ),
    "p09_row_tables/main.c:18": (
        "`pair_mean(own[i])` reads through rows of that table: not proved apart "
        "from `out` for the same reason"
    ),
}


@pytest.mark.parametrize("key", _FILES)
def test_no_pragma_on_a_trap_loop(key: str) -> None:
    assert not trap_hits(BATCH, key)


@pytest.mark.parametrize(("key", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(key: str, row: int) -> None:
    assert expert_parallelised(BATCH, key, row)
