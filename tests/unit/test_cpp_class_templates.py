"""C++ class templates read from the caller's side: `Field<double> f; f[i] = ..`.

A method's return type is the instance's (`T &` on a `Field<double>` is a
`double &`), and an accessor returning an element of a `std::vector<T>` member
is that element when the instance binds `T` to an arithmetic type. An accessor
of another place, or an instance over a class type, stays a call.
"""

from __future__ import annotations

from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect

_FIELD = """
#include <cstddef>
#include <vector>
struct V {
  double x;
  V &operator=(const V &o) { x = o.x; ++copies; return *this; }
  static int copies;
};
template <typename T>
struct Field {
  std::vector<T> data;
  explicit Field(std::size_t n) : data(n) {}
  T &operator[](std::size_t i) { return PLACE; }
  const T &operator[](std::size_t i) const { return data[i]; }
};
int main() {
  const std::size_t n = 1000;
  Field<ELEMENT> a(n);
  Field<double> b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = VALUE;
  }
  return 0;
}
"""
_LOOP = 20


def _parallel(place: str, element: str, value: str) -> bool:
    """Whether the loop over `a[i]` of a `Field<element>` gets a pragma."""
    text = (
        _FIELD.replace("PLACE", place)
        .replace("ELEMENT", element)
        .replace("VALUE", value)
    )
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(text, "t.cpp", settings)
    rows = {s.loop.span.start[0] + 1: s.pragma is not None for s in found.suggestions}
    return rows[_LOOP]


def test_an_arithmetic_instance_reads_the_accessor_as_its_element() -> None:
    assert _parallel("data[i]", "double", "2.0 * b[i]")


def test_an_accessor_of_one_shared_element_is_refused() -> None:
    # `data[0]` for the non-const overload: every iteration writes one place.
    assert not _parallel("data[0]", "double", "2.0 * b[i]")


def test_an_instance_over_a_class_type_keeps_its_operators_calls() -> None:
    # `V::operator=` counts its copies in a static member: a race.
    assert not _parallel("data[i]", "V", "V{b[i]}")


_ARRAYS = """
#include <array>
#include <cstddef>
struct V {
  double x;
  V &operator=(double v) { x = v; ++copies; return *this; }
  static int copies;
};
template <typename T, std::size_t N>
struct Field {
  std::array<T, N> data;
  T &operator[](std::size_t i) { return data[i]; }
};
template <typename T, std::size_t N>
void scale(Field<T, N> &f) {
  for (std::size_t i = 0; i < 4; ++i) f[i] = f[i] * 2;
}
static Field<double, 64> fa;
static Field<OTHER, 64> fb;
int main() {
  for (std::size_t i = 0; i < 64; ++i) {
    fa[i] = 1.0 * i;
    fb[i] = 2.0 * i;
  }
  scale(fa);
  scale(fb);
  return 0;
}
"""
_ARRAYS_LOOP = 21


def _arrays_parallel(other: str) -> bool:
    """Whether main's loop over `fa` and a `Field<other, 64> fb` gets a pragma."""
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(_ARRAYS.replace("OTHER", other), "t.cpp", settings)
    rows = {s.loop.span.start[0] + 1: s.pragma is not None for s in found.suggestions}
    return rows[_ARRAYS_LOOP]


def test_instances_through_a_function_template_bind_the_members() -> None:
    # `Field<T, N>` of `scale` binds what its calls do; `N` takes any value.
    assert _arrays_parallel("long")


def test_an_instance_over_a_class_type_keeps_the_members_unknown() -> None:
    assert not _arrays_parallel("V")
