"""The eleventh harm blind batch: probes of the newest proofs.

tests/fixtures/harm_blind11 holds one-file C and C++ programs (and, under
`projects/`, multi-file ones) whose traps try to break the proofs added last:
array members of elements (`b[l].lo[k]` as `b.lo[l][k]`), callee loops bounded
by a macro or by their parameters' call sites, other files' allocator
wrappers, C++ methods' call sites, pointers only tested against null and
`float` totals (see its README). The suggester runs in process, unvalidated
(validation only withdraws). Expert loops still missed are strict xfails keyed
by `file:line`, with the reason accls gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import harm_projects
from support.harm_batch import expert_params, programs, shared_rows, trap_hits

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind11"
PROJECTS = BATCH / "projects"
_PROGRAMS = [p.name for p in programs(BATCH)]
_OVERLOAD = (
    "a method call of the file may run another overload (its arguments' types "
    "are not matched to the definition's): which one runs is unknown"
)
_MISSED: dict[str, str] = {
    "h09_param_bounds.c:13": (
        "`blur` is also called through the function pointer `op`: not every call "
        "is seen, so its parameter `n` has no range and the slice no end"
    ),
    "h11_macro_redef.c:21": (
        "`LEN` is defined again (`#undef` then 16): a macro with two values "
        "bounds nothing, though `smooth` is read with the first"
    ),
    "h15_virtual.cpp:17": (
        "`Blur::run` is virtual: an override may run instead, even on an object "
        "whose class the file shows"
    ),
    "h16_lambda.cpp:14": _OVERLOAD,
    "h17_this_state.cpp:20": _OVERLOAD,
}
_PROJECTS_MISSED: dict[str, str] = {
    "a04_param_bound/main.c:9": (
        "`blur(x + W * j, W)`: `blur` (blur.c) has a caller in its own file "
        "(`twice`), so its summary keeps no index range for `n`"
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
