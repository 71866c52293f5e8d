"""The twelfth harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind12 holds one-file C programs (and, under `projects/`,
multi-file ones) written the way HPC code is (solvers, particle pushes,
sparse kernels, image filters, binning, sorting networks, Monte Carlo, table
builders), with traps: flattened rows that overlap, row tables split from one
buffer, index arrays that repeat, shallow copies, hidden library state,
`errno` and the floating-point environment read after a loop, thread-local
storage, false reductions, early exits, run-time calls and moving bounds (see
its README). The suggester runs in process, unvalidated (validation only
withdraws). Expert loops still missed are strict xfails keyed by `file:line`,
with the reason accls gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import harm_projects
from support.harm_batch import expert_params, programs, shared_rows, trap_hits

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind12"
PROJECTS = BATCH / "projects"
_PROGRAMS = [p.name for p in programs(BATCH)]
_MISSED: dict[str, str] = {}
_PROJECTS_MISSED: dict[str, str] = {}
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
