"""C++ running extremes: the standard `std::max`/`std::min`/`fmax` are reductions."""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, analyze
from accls.frontend import RedOp, parse_source

_TEXT = """
#include <algorithm>
#include <cmath>
#include <utility>
HEAD
TYPE top(const TYPE *a, int n) {
  TYPE m = a[0];
  for (int i = 0; i < n; i++) m = UPDATE;
  return m;
}
"""


def _fact(update: str, type_: str = "double", head: str = ""):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("HEAD", head).replace("TYPE", type_)
    source = parse_source(text.replace("UPDATE", update), "k.cpp")
    (fact,) = analyze(source, AnalysisOptions(assume_no_alias=True)).facts
    return fact


def _ops(fact) -> list[RedOp]:  # type: ignore[no-untyped-def]
    return [s.op for s in fact.scalars if s.name == "m" and s.op is not None]


@pytest.mark.parametrize(
    ("update", "type_", "head", "op"),
    [
        ("std::max(m, a[i])", "double", "", RedOp.MAX),
        ("std::min(m, a[i])", "double", "", RedOp.MIN),
        ("std::max<double>(m, a[i])", "double", "", RedOp.MAX),
        ("::std::max(m, a[i])", "double", "", RedOp.MAX),  # the global std
        ("::std::min<double>(m, a[i])", "double", "", RedOp.MIN),
        ("std::min(m, a[i])", "float", "", RedOp.MIN),
        ("std::max(a[i], m)", "int", "", RedOp.MAX),  # an int has no NaN
        ("std::min(a[i], m)", "long", "", RedOp.MIN),
        ("max(m, a[i])", "double", "using namespace std;", RedOp.MAX),
        ("min(a[i], m)", "int", "using std::min;", RedOp.MIN),
        ("fmax(a[i], m)", "double", "", RedOp.MAX),  # fmax drops a NaN
        ("std::fmin(a[i], m)", "double", "", RedOp.MIN),
    ],
)
def test_a_standard_extreme_is_a_reduction(
    update: str, type_: str, head: str, op: RedOp
) -> None:
    fact = _fact(update, type_, head)
    assert fact.parallel, [o.message for o in fact.obstacles]
    assert _ops(fact) == [op]


@pytest.mark.parametrize(
    "update", ["std::max(a[i], m)", "std::min<double>(a[i], m)", "std::min(a[i],m)"]
)
def test_a_floating_update_with_the_new_value_first_takes_a_nan(update: str) -> None:
    fact = _fact(update)
    assert not fact.parallel
    assert any("as it does for a NaN" in o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    ("update", "type_", "head"),
    [
        # a max the file defines may compute anything (here a sum)
        ("max(m, a[i])", "double", "double max(double x, double y) { return x + y; }"),
        (
            "max(m, a[i])",
            "double",
            "using namespace std;\nstatic double max(double x, double y) "
            "{ return x + y; }",
        ),
        ("ns::max(m, a[i])", "double", "namespace ns { double max(double, double); }"),
        ("max(m, a[i])", "double", ""),  # no using: not known to be std's
        ("std::max(m, a[i], [](double x, double y) { return x > y; })", "double", ""),
        ("std::max({m, a[i]})", "double", ""),
        ("std::max(m, a[i])", "std::pair<int, int>", ""),
    ],
)
def test_another_max_is_no_reduction(update: str, type_: str, head: str) -> None:
    fact = _fact(update, type_, head)
    assert not fact.parallel
    assert not _ops(fact)


def test_a_method_named_max_is_no_reduction() -> None:
    text = """
#include <algorithm>
using namespace std;
struct S {
  double bias;
  double max(double x, double y) const { return x + y + bias; }
  double run(const double *a, int n) const {
    double m = 0;
    for (int i = 0; i < n; i++) m = max(m, a[i]);
    return m;
  }
};
"""
    source = parse_source(text, "k.cpp")
    (fact,) = analyze(source, AnalysisOptions(assume_no_alias=True)).facts
    assert not fact.parallel
    assert not _ops(fact)
