"""The fifth harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind5 holds one-file programs from new domains whose loops
are marked `/* expert: parallel */` or `/* trap: REASON */` (see its README).
The suggester runs in process, unvalidated (validation only withdraws, so a
trap loop left alone here is left alone by `accls annotate` too). Expert loops
still missed are strict xfails keyed by `file:line`, with the reason accls
gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.harm_batch import expert_params, shared_rows, trap_hits

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind5"
_PROGRAMS = sorted(p.name for p in BATCH.glob("*.c"))
_MISSED: dict[str, str] = {
    "m02_graph_components.c:74": (
        "`adj[at++]` with `at = rowptr[v]`: a row of a prefix-summed offset "
        "table filled by a cursor; the subscripts are data"
    ),
    "m02_graph_components.c:83": (
        "`qsort(&adj[rowptr[v]], deg[v], ..)` sorts a row of a prefix-summed "
        "offset table: rows apart only if `rowptr` ascends by `deg`"
    ),
    "m05_edit_distance.c:76": (
        "the wavefront's column `d - i` stays in [1, LEN] only through the "
        "bounds `lo`/`hi` set by `if` statements, which are not modelled"
    ),
    "m05_edit_distance.c:85": (
        "`make_reads(p)` writes rows `ra[p]`, `rb[p]` of global tables indexed "
        "by its parameter: a summary keeps no index of a global it writes"
    ),
    "m05_edit_distance.c:91": (
        "`TRACK_RUN(..)`, a `do { } while (0)` macro over the body's locals, is "
        "seen as a call of unknown effects"
    ),
    "m06_adaptive_quad.c:72": (
        "`adapt()` is recursive: recursive functions are not summarised"
    ),
    "m09_delta_rle.c:63": (
        "`expanded[run_off[r] + k]`: runs of a prefix-summed offset table; the "
        "subscripts are data"
    ),
    "m12_option_pricing.c:93": (
        "`snprintf` is not in the table of library effects: its variadic "
        "arguments may be read through (`%s`)"
    ),
}


@pytest.mark.parametrize("name", _PROGRAMS)
def test_no_pragma_on_a_trap_loop(name: str) -> None:
    assert not trap_hits(BATCH / name)


@pytest.mark.parametrize(("name", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(name: str, row: int) -> None:
    assert row in shared_rows(BATCH / name)
