"""The second C++ harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind_cpp2 holds one-file C++17 programs whose loops are
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

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind_cpp2"
_PROGRAMS = [p.name for p in programs(BATCH)]
_TEMPLATE = (
    "a template parameter bound to class types (the functors): their call "
    "operators are not read through the parameter"
)
_MEMBER_ARGS = (
    "the method's callers pass members (`m_p`, `m_r`) through the implicit "
    "`this`, whose objects call sites do not name"
)
_DATA_VIEWS = (
    "pointer members set from `data()` of two vectors: the alias analysis "
    "does not follow a member's stores to the vector that owns the buffer"
)
Need = Callable[[str], str]
_MISSED: dict[str, str] = {
    "d01_hex_stress.cpp:40": (
        "`int *nl = &d.m_nodelist[8 * e]` is re-pointed each iteration, and the "
        "stores `nl[0..7]` are not read as `m_nodelist[8 * e + 0..7]`"
    ),
    "d02_sparse_matrix.cpp:55": (
        "`m_val[k] *= w[r]` over `k` in `m_rowptr[r] .. m_rowptr[r + 1]`: rows "
        "of a CSR pointer are not known to be disjoint ranges"
    ),
    "d03_conjugate_gradient.cpp:23": f"`axpby`'s `y` and `x`: {_MEMBER_ARGS}",
    "d03_conjugate_gradient.cpp:30": f"`apply`'s `y` and `x`: {_MEMBER_ARGS}",
    "d04_particle_push.cpp:19": (
        "`p.force[i] = f` copies a `std::array` (`std::array::operator=` is "
        "not in the table), and `f` is taken for a pointer the loop re-points"
    ),
    "d04_particle_push.cpp:41": (
        "`p.vel[i][k]` of `std::vector<std::array<double, 3>>` through a "
        "`Particles &` parameter: rows read from memory, not known apart"
    ),
    "d04_particle_push.cpp:52": (
        "`p.pos[i] = {..}` assigns a `std::array` from a list: "
        "`std::array::operator=` is not in the table"
    ),
    "d05_template_stencil.cpp:10": (
        "`out` and `in`, two `std::vector<T> &` parameters, may be one vector"
    ),
    "d05_template_stencil.cpp:26": (
        "`dst` and `src`, two `std::vector<T> &` parameters, may be one vector"
    ),
    "d06_map_histogram.cpp:25": (
        "the iterator `std::map::find` returns: its type is not known, so its "
        "`!=` and `->second` are calls of unknown functions"
    ),
    "d08_struct_reductions.cpp:67": (
        "`total += x[i]` through `Stats::operator+=(double)`, no sum of "
        "fields: an expert declares the reduction; accls does not"
    ),
    "d08_struct_reductions.cpp:71": (
        "`perBlock[b] += x[i]` through `Stats::operator+=(double)`: a method "
        "that is not an accessor is a call whose effects are not summarised"
    ),
    "d09_functors_output.cpp:44": f"`f(in[i])` of a functor type `F`: {_TEMPLATE}",
    "d10_views_aliasing.cpp:50": (
        f"`vz.p` and `vw.p`, pointer members of two `View`s: {_DATA_VIEWS}"
    ),
    "d10_views_aliasing.cpp:71": (
        "`r` and `s1` are references returned by `Workspace::result()` and "
        "`scratch()`: what a method returns is not followed to the member"
    ),
    "d10_views_aliasing.cpp:78": (
        "`r` and `s1`, references returned by two methods, may overlap"
    ),
    "d11_iterator_loops.cpp:28": (
        "`i + 1 < n` is not OpenMP's canonical test (`i < n - 1` is, for a "
        "signed `i`; with `std::size_t` it wraps when `n` is 0)"
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
