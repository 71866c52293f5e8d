"""C++ members over a whole project: bare stores in methods, containers' buffers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls.cli import main
from accls.files import looks_like_c
from accls.frontend import FieldEventKind, parse_source

HEADER = """\
#include <cstdlib>
#include <vector>
template <typename T> T *Allocate(std::size_t n) {
  return static_cast<T *>(std::malloc(sizeof(T) * n));
}
template <typename T> void Release(T **p) {
  if (*p != NULL) { std::free(*p); *p = NULL; }
}
class Grid {
 public:
  explicit Grid(int n) : m_v(n, 1.0) { Alloc(n); }
  ~Grid() { Release(&m_t); delete[] m_u; }
  void Alloc(int n) {
    m_t = Allocate<double>(n);
    m_u = new double[n];
  }
  std::vector<double> m_v;
  double *m_t;
  double *m_u;
  double *m_w;
};
void kernel(Grid &g, int n);
"""
KERNEL = """\
#include "grid.h"
void kernel(Grid &g, int n) {
  for (int i = 0; i < n; i++)
    g.m_t[i] = 2.0 * g.m_v[i];
  for (int i = 0; i < n; i++)
    g.m_u[i] = g.m_t[i] + 1.0;
  for (int i = 0; i < n; i++)
    g.m_w[i] = g.m_v[i];
}
"""
MAIN = """\
#include "grid.h"
int main() {
  Grid g(100);
  g.m_w = g.m_v.data();
  kernel(g, 100);
  return 0;
}
"""


def _loops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> dict[int, dict[str, object]]:
    root = tmp_path / "proj"
    root.mkdir()
    for name, text in {"grid.h": HEADER, "kernel.cc": KERNEL, "main.cc": MAIN}.items():
        (root / name).write_text(text)
    code = main(
        [
                    "suggest", "--model", "openmp", "--format", "json", "--no-validate",
            "--index-cache", str(tmp_path / "cache"), "--project", str(root),
            str(root / "kernel.cc"),
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    return {int(o["line"]): o for o in json.loads(out)}


def test_a_bare_member_store_in_a_method_is_a_store_to_this() -> None:
    source = parse_source(HEADER, "grid.h", language="cpp")
    stores = {
        (e.function, e.path, e.value)
        for e in source.field_events
        if e.kind is FieldEventKind.STORE
    }
    assert ("Grid::Alloc", "this->m_t", "Allocate<double>(n)") in stores
    assert ("Grid::Alloc", "this->m_u", "new double[n]") in stores
    # `Release(&m_t)` only frees and nulls it: no address event.
    assert not [
        e
        for e in source.field_events
        if e.kind is FieldEventKind.ADDRESS and e.path == "this->m_t"
    ]


def test_a_local_that_shadows_a_member_is_not_a_member_store() -> None:
    source = parse_source(
        "class A { double *m; void f() { double *m; m = 0; } };\n", "a.cpp"
    )
    assert not [e for e in source.field_events if e.path == "this->m"]


def test_a_reference_parameter_is_a_sign_of_cpp() -> None:
    assert looks_like_c("kernel.cc", KERNEL, 0, 3) is None


def test_fields_from_allocations_are_apart_from_a_containers_elements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loops = _loops(tmp_path, capsys)
    assert loops[3]["parallelizable"] is True, loops[3]["reasons"]
    assert loops[5]["parallelizable"] is True, loops[5]["reasons"]
    # `m_w` is set to the vector's own buffer (in main.cc): it may overlap `m_v`.
    assert loops[7]["parallelizable"] is False
    assert "main.cc:4" in str(loops[7]["reasons"])
