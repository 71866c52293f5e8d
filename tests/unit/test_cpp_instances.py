"""C++ templates: a loop over a parameter's type is read with the program's instances.

A template's loop gets a pragma only when every instantiation the program shows
binds the parameter to an arithmetic type; a `float` one keeps the float-total
rule, a class type or an instantiation not read keeps the operators unknown.
"""

from __future__ import annotations

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect

_TEMPLATE = """
#include <vector>
struct Counted {
  double v;
  static int calls;
  Counted &operator+=(const Counted &o) { v += o.v; ++calls; return *this; }
};
template <typename T>
T total(const T *a, int n) {
  T s = T();
  for (int i = 0; i < n; i++) s += a[i];
  return s;
}
template <typename T>
void scale(std::vector<T> &y, T a) {
  for (std::size_t i = 0; i < y.size(); i++) y[i] = a * y[i];
}
MAIN
"""


def _pragmas(main: str, reassociate: bool = False) -> dict[int, bool]:
    """Whether each loop (by its 1-based line) gets a pragma."""
    text = _TEMPLATE.replace("MAIN", main)
    settings = Settings(
        dialect=Dialect.OPENMP, validate=False, reassociate_float=reassociate
    )
    found = suggest_text(text, "t.cpp", settings)
    return {s.loop.span.start[0] + 1: s.pragma is not None for s in found.suggestions}


_TOTAL, _SCALE = 11, 16


@pytest.mark.parametrize(
    "main",
    [
        "int main() { double a[4] = {0}; return (int)total(a, 4); }",
        "int main() { double a[4] = {0}; long b[4] = {0};"
        " return (int)(total(a, 4) + total(b, 4)); }",
        "int main() { double a[4] = {0}; return (int)total<double>(a, 4); }",
    ],
)
def test_an_arithmetic_instance_reads_the_sum_as_a_reduction(main: str) -> None:
    assert _pragmas(main)[_TOTAL]


@pytest.mark.parametrize(
    "main",
    [
        # a float total: its digits depend on the grouping
        "int main() { float a[4] = {0}; return (int)total(a, 4); }",
        "int main() { double a[4] = {0}; float f[4] = {0};"
        " return (int)(total(a, 4) + total(f, 4)); }",
        # a class whose `+=` counts
        "int main() { Counted c[4] = {}; double a[4] = {0};"
        " return (int)(total(c, 4).v + total(a, 4)); }",
        # no instantiation, or one the reading does not follow
        "int main() { return 0; }",
        "int main() { double a[4] = {0}; auto *p = &total<float>;"
        " return (int)total(a, 4); }",
        "int main() { double a[4] = {0}; return (int)::total(a, 4); }",
        "int main() { double a[4] = {0}; return (int)total(a + 1, 3); }",
    ],
)
def test_an_instance_not_proved_arithmetic_keeps_the_loop(main: str) -> None:
    assert not _pragmas(main)[_TOTAL]


def test_a_float_instance_follows_reassociate_float() -> None:
    main = "int main() { float a[4] = {0}; return (int)total(a, 4); }"
    assert _pragmas(main, reassociate=True)[_TOTAL]


def test_without_main_the_instances_are_not_all_known() -> None:
    assert not _pragmas("double f(double *a) { return total(a, 4); }")[_TOTAL]


def test_a_deduced_container_instance_binds_the_element_type() -> None:
    main = "int main() { std::vector<double> v(8); scale(v, 2.0); return 0; }"
    assert _pragmas(main)[_SCALE]
    bad = "int main() { std::vector<Counted> v(8); scale(v, Counted{}); return 0; }"
    assert not _pragmas(bad)[_SCALE]


_FIELD = """
#include <vector>
struct Counted {
  double v;
  static int calls;
  Counted operator*(const Counted &o) const { ++calls; return {v * o.v}; }
};
template <typename T>
class Field {
 public:
  void scale(T a) {
    for (std::size_t i = 0; i < m_v.size(); ++i) m_v[i] = a * m_v[i];
  }
 private:
  std::vector<T> m_v;
};
int main() { USES }
"""


@pytest.mark.parametrize(
    ("uses", "shared"),
    [
        ("Field<double> f; f.scale(2.0);", True),
        ("Field<double> f; Field<float> g; f.scale(2.0); g.scale(1.f);", True),
        ("Field<double> f; Field<Counted> g; f.scale(2.0);", False),
    ],
)
def test_a_class_template_method_reads_the_class_instances(
    uses: str, shared: bool
) -> None:
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(_FIELD.replace("USES", uses), "t.cpp", settings)
    (loop,) = found.suggestions
    assert (loop.pragma is not None) is shared
