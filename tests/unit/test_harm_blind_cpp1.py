"""The first C++ harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind_cpp1 holds one-file C++17 programs whose loops are
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

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind_cpp1"
_PROGRAMS = [p.name for p in programs(BATCH)]
_NOT_ACCESSOR = (
    "a method or operator that is not an accessor (its body writes its object) "
    "is an unknown call"
)
_TEMPLATE = (
    "the element type is a template parameter: its operators may be calls "
    "(instances of `Field<T, N>` are not matched: `N` is a non-type parameter, "
    "and a class template's accessors are read with `T` unknown)"
)
_CANONICAL = "`i + 1 < n` is not OpenMP's canonical test (`i < n - 1` is)"
Need = Callable[[str], str]
_MISSED: dict[str, str] = {
    "c02_vec3_particles.cpp:61": (
        f"`vel[i] += ...` of an element: {_NOT_ACCESSOR}; and `pos[i] + ...` "
        "calls `Vec3::operator+`, which reads `pos` where the loop writes it"
    ),
    "c02_vec3_particles.cpp:80": (
        "`fsum` is a `float` total: refused since the seventh C batch (a float "
        "sum's digits depend on the grouping), although these whole numbers "
        "add up exactly"
    ),
    "c05_containers_grow.cpp:46": (
        "`auto it = total.find(..)`: the type of the iterator `std::map::find` "
        "returns is not known, so its `==` and `->second` are unknown calls"
    ),
    "c05_containers_grow.cpp:51": (
        "`pairs[j].first` of a `std::pair`: the types of its members are not known"
    ),
    "c06_overlap_views.cpp:37": (
        "`dst[i]` is `dst.ptr[i]`, `src[i]` `src.ptr[i]`: pointer members set "
        "from `b.data()` and `a.data()`, which the alias analysis does not follow"
    ),
    "c07_templates.cpp:10": (
        "`y` and `x`, two `std::vector<T> &` parameters (T bound to double and "
        "float by the calls), may be one vector"
    ),
    "c07_templates.cpp:34": (
        "`s` is a `float` total (sumOf is instantiated with float only): refused "
        "although these whole numbers add up exactly"
    ),
    "c07_templates.cpp:50": f"{_TEMPLATE}; {_CANONICAL}",
    "c08_side_effect_operators.cpp:107": _CANONICAL,
    "c08_side_effect_operators.cpp:111": (
        f"`acc[r] += v` of `Accum`, which also counts: {_NOT_ACCESSOR}"
    ),
    "c09_iterators_rangefor.cpp:65": (
        "`row.push_back(..)` on each row: `push_back` writes the row the "
        "range-for element names, which is not known to be the iteration's own"
    ),
    "c10_grid_stencil.cpp:30": (
        "`out(i, j)` is `out.m_v[i * out.m_ny + j]`, but `j` stops at `in.ny() - "
        "1`: nothing proves `in` and `out` have rows of one length (nor that "
        "the two `Grid2D &` parameters are distinct grids)"
    ),
    "c10_grid_stencil.cpp:68": (
        "`rhs(i, j)` is `rhs.m_v[i * rhs.m_ny + j]` and `j` stops at `ny`: "
        "that the constructor `Grid2D rhs(nx, ny)` set `m_ny` to `ny` is not "
        "followed"
    ),
    "c10_grid_stencil.cpp:85": (
        "`diff(i, j)`: the constructor's `m_ny(ny)` is not followed (as line 68)"
    ),
    "c11_sparse_csr.cpp:61": (
        "`col[k++]` with `k = ptr[r]`: a cursor from a prefix-summed row pointer; "
        "and `col`, `ptr` are references returned by methods, which may overlap"
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
