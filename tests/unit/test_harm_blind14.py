"""The fourteenth harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind14 holds one-file C programs and, under `projects/`,
multi-file ones, written the way HPC code is (multigrid, lattice Boltzmann,
Monte Carlo, k-means, CSR construction, life with swapped buffers, histogram
equalisation, FFT, Smith-Waterman, radix sort, union-find, an arena, two
time levels, random streams), with traps: running sums and moving cursors,
first-match exits, generators with hidden or shared state, a buffer swap
skipped so both names are one block, `volatile`/`_Atomic`/`sig_atomic_t`
flags, NaN-taking maxima, saturating totals, and loop bodies that are an
`#if` block or an `#include` (see its README). The suggester runs in
process, unvalidated (validation only withdraws). Expert loops still missed
are strict xfails keyed by `file:line`, with the reason accls gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import harm_projects
from support.harm_batch import expert_params, programs, shared_rows, trap_hits

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind14"
PROJECTS = BATCH / "projects"
_PROGRAMS = [p.name for p in programs(BATCH)]
_MISSED: dict[str, str] = {
    "d05_csr.c:30": (
        "an insertion sort inside each row: `ci[b + 1]` uses `b`, which the "
        "`while` moves, so the writes are not kept inside the row"
    ),
    "d06_life.c:12": (
        "`step(cur, nxt)`: the two pointer parameters are not proved apart "
        "from the calls, which pass buffers swapped in the time loop"
    ),
    "d08_fft.c:16": (
        "`double complex` (the `complex` macro) does not parse, so the "
        "declaration of `a` is not visible"
    ),
    "d08_fft.c:25": (
        "the guarded swap `if (i < j)` with `j = rev[i]`: a scatter through "
        "an index list, not known to be an involution"
    ),
    "d08_fft.c:35": (
        "the butterfly groups step by `2 * half`, no constant, and "
        "`double complex` does not parse"
    ),
    "d09_smithwaterman.c:18": (
        "`alpha` points to a string literal: not known to be apart from `sa`"
    ),
    "d09_smithwaterman.c:19": (
        "`alpha` points to a string literal: not known to be apart from `sb`"
    ),
    "d09_smithwaterman.c:22": (
        "the anti-diagonal `j = d - i`: the bounds from MAX/MIN are not used "
        "to keep `d - i - 1` inside the row, so rows are not told apart"
    ),
    "d13_directive_bodies.c:76": (
        "the body is an `#if` block after a braceless header in a file that "
        "does not parse: accls cannot read it and keeps the loop serial"
    ),
}
_PROJECTS_MISSED: dict[str, str] = {
    "e01_arena/main.c:12": (
        "`u` and `v` come from `arena_take` (arena.c), which hands out pieces "
        "of one pool: they are not proved apart"
    ),
    "e04_included/main.c:16": (
        'the body is `#include "scale_body.inc"` after a braceless header: '
        "accls cannot read it and keeps the loop serial"
    ),
}
_PROJECT_FILES = harm_projects.project_files(PROJECTS)


@pytest.mark.parametrize("name", _PROGRAMS)
def test_no_pragma_on_a_trap_loop(name: str) -> None:
    assert not trap_hits(BATCH / name)


@pytest.mark.parametrize(("name", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(name: str, row: int) -> None:
    assert row in shared_rows(BATCH / name)


@pytest.mark.parametrize("key", _PROJECT_FILES)
def test_no_pragma_on_a_projects_trap_loop(key: str) -> None:
    assert not harm_projects.trap_hits(PROJECTS, key)


@pytest.mark.parametrize(
    ("key", "row"), harm_projects.expert_params(PROJECTS, _PROJECTS_MISSED)
)
def test_projects_expert_loop_gets_a_pragma(key: str, row: int) -> None:
    assert harm_projects.expert_parallelised(PROJECTS, key, row)
