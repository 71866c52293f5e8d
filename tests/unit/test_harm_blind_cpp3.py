"""The third C++ harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind_cpp3 holds one-file C++17 programs whose loops are
marked `/* expert: parallel */` or `/* trap: REASON */` (see its README). The
suggester runs in process, unvalidated (validation only withdraws, so a trap
loop left alone here is left alone by `accls annotate` too). Expert loops still
missed are strict xfails keyed by `file:line`, with the reason accls gives.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.harm_batch import expert_params, programs, shared_rows, trap_hits

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind_cpp3"
_PROGRAMS = [p.name for p in programs(BATCH)]
_STRING = (
    "`std::string`'s operators and methods (`+`, `=`, `size`, `begin`) are not "
    "in the table of C++ library effects"
)
_POINTEE = (
    "`cells[i]->v` of a `std::shared_ptr<Cell>` element: the type of what a "
    "smart pointer points to is not known, so the operators on it are calls"
)
Need = Callable[[str], str]
_MISSED: dict[str, str] = {
    "e03_vector_bool.cpp:25": (
        "`pos[i]` of a `std::vector<bool>` is a proxy object: "
        "`std::vector<bool>::operator[]` is a call (its bits share words)"
    ),
    "e04_strings.cpp:16": f"`names[i] = std::string(..) + ..`: {_STRING}",
    "e04_strings.cpp:24": (
        "a range-for over `names[i]`, a `std::string`: its iterators are not "
        "known to be random access"
    ),
    "e05_shared_ptrs.cpp:24": _POINTEE,
    "e05_shared_ptrs.cpp:27": (
        f"`std::shared_ptr<Cell> c = cells[i]` copies the pointer: {_POINTEE}"
    ),
    "e05_shared_ptrs.cpp:35": (
        "`own[i]->w` of a `std::unique_ptr<Cell>` element: the type of what "
        "it points to is not known"
    ),
    "e06_virtual_calls.cpp:65": (
        "`shapes[i % 2]->area(..)`: a virtual call, whose overrides (all pure "
        "here) are not read"
    ),
    "e09_algorithms_inside.cpp:29": (
        "`r + 1 < nr` is not OpenMP's canonical test (`r < nr - 1` is, for a "
        "signed `r`)"
    ),
    "e10_io_rand_exceptions.cpp:28": (
        "`checked_root` may throw: its `std::domain_error` constructor is an "
        "unknown call (the throw is caught in the same iteration)"
    ),
    "e10_io_rand_exceptions.cpp:36": (
        "a local `std::ostringstream` per iteration: its `<<` is read as "
        "ordered I/O, and `os.str().size()` has no known type"
    ),
}


@pytest.fixture(autouse=True)
def _gxx(need: Need) -> None:
    need("g++")


@pytest.mark.parametrize("name", _PROGRAMS)
def test_no_pragma_on_a_trap_loop(name: str) -> None:
    assert not trap_hits(BATCH / name)


@pytest.mark.parametrize(("name", "row"), expert_params(BATCH, _MISSED))
def test_expert_loop_gets_a_pragma(name: str, row: int) -> None:
    assert row in shared_rows(BATCH / name)
