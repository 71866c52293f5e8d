"""`T &operator()(i, j) { return m_v[i * m_ny + j]; }`: a grid element, rows by member.

The subscript reads a scalar member of the object the call names (`g.m_ny`),
bound through it; a bound `j < g.ny()` of an accessor is that member; a store to
a `std::vector<double>` member's elements changes no other member.
"""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_GRID = """
#include <cstddef>
#include <vector>
struct Grid {
  Grid(int nx, int ny) : m_nx(nx), m_ny(ny), m_v((std::size_t)nx * ny) {}
  int nx() const { return m_nx; }
  int ny() const { return m_ny; }
  double &operator()(int i, int j) { return m_v[(std::size_t)i * m_ny + j]; }
  double &at(int i) { return m_v[(unsigned char)i]; }
  void widen() { m_ny += 1; }
  int m_nx, m_ny;
  std::vector<double> m_v;
};
void run(Grid &g, double k) {
  for (int i = OUTER; i < g.nx(); ++i) {
    for (int j = 0; j < g.ny(); ++j) {
      BODY
    }
  }
}
"""


def _facts(body: str, outer: str = "0") -> tuple[bool, bool]:
    text = _GRID.replace("BODY", body).replace("OUTER", outer)
    outer_fact, inner_fact = analyze_text(text, path="t.cpp").facts
    return outer_fact.parallel, inner_fact.parallel


def test_an_in_place_scale_of_a_grid_is_parallel() -> None:
    assert _facts("g(i, j) = k * g(i, j);") == (True, True)


def test_reading_the_row_above_is_carried_by_rows_only() -> None:
    assert _facts("g(i, j) = g(i - 1, j) + k;", outer="1") == (False, True)


@pytest.mark.parametrize(
    "body",
    [
        "g(i, j) = k; g.m_ny = j + 1;",  # the row length changes
        "g(i, j) = k; g.widen();",  # a method changes it
    ],
)
def test_a_row_length_written_in_the_nest_is_refused(body: str) -> None:
    assert _facts(body)[0] is False


def test_a_narrowing_cast_in_the_subscript_is_no_plain_index() -> None:
    assert _facts("g.at(i * 64 + j) = k;")[0] is False


_NESTED = """
#include <vector>
struct Grid {
  double &operator()(int i, int j) { return m_v[i * m_ny + j]; }
  int m_ny;
  std::vector<double> m_v;
};
struct Holder { Grid g; };
void run(Holder &h, int nx) {
  for (int i = 0; i < nx; ++i) {
    for (int j = 0; j < 8; ++j) {
      BODY
    }
  }
}
"""


def test_a_grid_inside_a_referenced_object_names_its_row_length_alike() -> None:
    text = _NESTED.replace("BODY", "h.g(i, j) = 1.0; h.g.m_ny = i;")
    assert not any(f.parallel for f in analyze_text(text, path="t.cpp").facts)
