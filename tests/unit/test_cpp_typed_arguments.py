"""Free-function overloads picked by the types of expression arguments.

`half(int)` counts its calls in a global, `half(double)` does not: a call whose
argument is an element, a member or a literal of a known type runs the
overload that takes it without a conversion, and only that one decides.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze
from accls.analysis.argument_types import ArgType, binds
from accls.frontend import parse_source

_HEAD = """\
#include <vector>
static int hits = 0;
struct Cell { double v; int n; };
static double half(int x) { hits++; return x / 2; }
static double half(double x) { return x / 2.0; }
static double peek(int x) { hits++; return x; }
static double peek(const double &x) { return x; }
static double keep(int x) { hits++; return x; }
static double keep(double &x) { return x; }
"""


def _parallel(body: str, args: str = "Cell *c, const double *b, int *k") -> bool:
    text = _HEAD + dedent(
        f"""\
        double f({args}, int n) {{
          double s = 0.0;
          for (int i = 0; i < n; i++) s += {body};
          return s;
        }}
        """
    )
    options = AnalysisOptions(assume_no_alias=True)
    (fact,) = analyze(parse_source(text, "k.cpp"), options).facts
    return fact.parallel


@pytest.mark.parametrize(
    "body",
    [
        "half(c[i].v)",  # a member of an element: a double
        "half(b[i])",  # an element of a const double *
        "half(2.0)",
        "half(-1.5e3)",
        "half(c->v)",
        "peek(c[i].v)",  # a const reference binds a double exactly
        "peek(b[i])",
        "peek(3.0)",
        "keep(c[i].v)",  # a non-const double lvalue binds `double &`
    ],
)
def test_an_exact_overload_is_the_one_that_runs(body: str) -> None:
    assert _parallel(body)


@pytest.mark.parametrize(
    "body",
    [
        "half(c[i].n)",  # an int member: the counting overload
        "half(k[i])",
        "half(2)",
        "half(2.0f)",  # a float converts to either: no exact pick
        "half('a')",
        "keep(b[i])",  # a const double cannot bind `double &`: keep(int) runs
        "keep(2.0)",  # nor can a literal
        "half(c[i].v + 1)",  # arithmetic: no type read here
        "half(r)",  # a reference parameter: its type is not the pointer's
        "half(v[i])",  # a container's element (its operator[])
    ],
)
def test_other_arguments_leave_the_call_unresolved_or_counting(body: str) -> None:
    args = "Cell *c, const double *b, int *k, double &r, std::vector<double> &v"
    assert not _parallel(body, args)


def test_a_reference_is_not_read_as_a_pointer() -> None:
    """`f(r)` of `double &r` runs `f(double)`, never `f(double *)`."""
    text = dedent(
        """\
        static int hits = 0;
        static double f(double x) { hits++; return x; }
        static double f(double *p) { return *p; }
        double total(double &r, int n) {
          double s = 0.0;
          for (int i = 0; i < n; i++) s += f(r);
          return s;
        }
        """
    )
    (fact,) = analyze(parse_source(text, "k.cpp")).facts
    assert not fact.parallel


@pytest.mark.parametrize(
    ("param", "arg", "ok"),
    [
        ("double", ArgType("double"), True),
        ("constdouble&", ArgType("double"), True),
        ("double&", ArgType("double"), False),  # a literal is no lvalue
        ("double&", ArgType("double", lvalue=True), True),
        ("double&", ArgType("double", lvalue=True, const=True), False),
        ("double&&", ArgType("double"), False),
        ("int", ArgType("double", lvalue=True), False),
    ],
)
def test_binds(param: str, arg: ArgType, ok: bool) -> None:
    assert binds(param, arg) is ok
