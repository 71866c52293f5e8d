"""A C++ argument bound to a `T &` parameter is the place the callee writes.

`bump(a[i])` of `void bump(double &x)` writes `a[i]`, as `bump(&a[i])` of a
pointer parameter would: the call passes the place's address, so distinct
elements or a private local keep the loop parallel, while one element for all
iterations or a shared scalar stays a write the loop cannot split.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze
from accls.frontend import parse_source

HEAD = """\
    static double total = 0.0;
    void bump(double &x) { x += 1.0; }
    void scale(double &x, double s) { x *= s; }
    double peek(const double &x) { return 2.0 * x; }
    void mixed(double &x, int) { x = 0.0; }
    void mixed(double x) { total = x; }
    """


def _loop(body: str) -> tuple[bool, str]:
    text = dedent(HEAD) + (
        f"void f(int n, double *a) {{\n  for (int i = 0; i < n; i++) {{ {body} }}\n}}\n"
    )
    analysis = analyze(
        parse_source(text, "k.cpp"), AnalysisOptions(assume_no_alias=True)
    )
    (fact,) = analysis.facts
    return fact.parallel, " | ".join(o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    "body",
    [
        "bump(a[i]);",
        "scale(a[2 * i], 0.5);",
        "double t = a[i]; bump(t); a[i] = t;",
        "double t = a[i]; scale(t, 2.0); a[i] = t + peek(t);",
    ],
)
def test_a_reference_argument_is_the_place_written(body: str) -> None:
    parallel, why = _loop(body)
    assert parallel, why


@pytest.mark.parametrize(
    "body",
    [
        "bump(a[i / 2]);",
        "bump(a[0]);",
        "bump(total);",
        "bump(a[n - 1 - i]); a[i] += 1.0;",
        "mixed(a[i]);",
    ],
)
def test_a_reference_argument_others_reach_stays_refused(body: str) -> None:
    parallel, why = _loop(body)
    assert not parallel
    assert why


def test_the_call_passes_the_address_of_the_bound_place_only() -> None:
    source = parse_source(
        dedent(HEAD) + "void f(double *a, int i) { double t = 1.0;"
        " scale(a[i], t); mixed(t); peek(t); }\n",
        "k.cpp",
    )
    (fn,) = [f for f in source.functions if f.name == "f"]
    calls = {c.name: c.args for c in fn.call_sites}
    assert calls == {"scale": ("&a[i]", "t"), "mixed": ("t",), "peek": ("t",)}
