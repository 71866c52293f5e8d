"""The thirteenth harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind13 holds one-file C (and C++) programs and, under
`projects/`, multi-file ones, written the way HPC code is (bit sets, byte
views, pointer walks, periodic indices, neighbour lists, report loops, wide
and narrow totals, macros, DP tables, records, particle-in-cell, BFS, a halo
exchange, finite-element assembly), with traps: words and bytes shared by
neighbouring indices, adjacent bit-fields, views that reach the next element,
shared cursors, hidden library state, `long double` totals (see its README).
The suggester runs in process, unvalidated (validation only withdraws).
Expert loops still missed are strict xfails keyed by `file:line`, with the
reason accls gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from support import harm_projects
from support.harm_batch import expert_params, programs, shared_rows, trap_hits

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind13"
PROJECTS = BATCH / "projects"
_PROGRAMS = [p.name for p in programs(BATCH)]
_MISSED: dict[str, str] = {
    "c02_bytes.c:35": (
        "`((int *)&g[i])[0]`: a cast view of an element is not read as the "
        "element's own bytes"
    ),
    "c03_walks.c:25": (
        "`alloca()` is not in the table of library effects, so the pointer it "
        "returns is not fresh per iteration"
    ),
    "c05_nlist.c:21": (
        "`full[i][nf++]`: a row filled by a cursor local to the iteration is "
        "not read as the iteration's own row"
    ),
    "c08_macros.c:16": (
        "a loop written in a macro's body: the parse sees the invocation "
        "`SCALE_LOOP(b, a, 2.0);`, not a loop"
    ),
    "c09_dp.c:28": (
        "the anti-diagonal `j = d - i`: the bounds `lo`, `hi` are not used to "
        "keep `d - i - 1` inside the row, so rows are not told apart"
    ),
    "c10_records.c:24": (
        '`memcpy(rec[i].name, "item", 5)`: a call\'s write into an inline '
        "member array is not proved to stay in the element"
    ),
    "c10_records.c:34": (
        "`for (char *p = rec[i].name; *p; p++)`: a pointer walk over the "
        "element's member is not modelled"
    ),
}
_PROJECTS_MISSED: dict[str, str] = {
    "q01_halo/halo.c:7": (
        "`u[(b + nb - 1) % nb][NX]` is read, `u[b][0]` written: a remainder by "
        "a symbol is known only to lie in bounds, so the rows are not told apart"
    ),
    "q03_bitset/main.c:12": (
        "`bs_word(sq, k, m)` (bitset.c) writes `w[k]`: the summary keeps no "
        "index ranges, so the calls' writes are not proved disjoint"
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


def test_shared_words_and_bytes_are_updated_atomically() -> None:
    # c01's bit-set loops share a word (a byte) between neighbouring indices:
    # they may run in parallel only with each `|=` made atomic.
    path = BATCH / "c01_bitset.c"
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(path.read_text(encoding="utf-8"), str(path), settings)
    lines = path.read_text(encoding="utf-8").splitlines()
    words = [
        s
        for s in found.suggestions
        if s.pragma is not None and "atomic:" in lines[s.loop.span.start[0]]
    ]
    assert len(words) == 2
    assert all(s.atomics for s in words)
