"""A field of a container element passed by reference is the place written.

`bump(c[i].v)` of `void bump(double &x)` (or `bump(&c[i].v)` of `double *x`)
updates the field `v` of the element `c[i]` alone, for a `std::vector` of
structs and an array of them: the loop is parallel when the subscripts keep
the iterations' elements apart. One element for all iterations, a neighbour's
field, a callee that reaches past the field, or a union (whose members
overlap) stays refused, as does a shared scalar.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze
from accls.frontend import parse_source

HEAD = """\
    #include <vector>
    struct S { double v; double w; };
    union U { double v; double w; };
    struct T { double v[2]; double w; };
    static double total = 0.0;
    void bump(double &x) { x += 1.0; }
    void poke(double *x) { *x = 2.0; }
    void past(double *x) { x[1] += 1.0; }
    """


def _loop(body: str) -> tuple[bool, str]:
    text = dedent(HEAD) + (
        "void f(int n, std::vector<S> &c, S *a, U *u, T *t) {\n"
        f"  for (int i = 0; i < n - 1; i++) {{ {body} }}\n}}\n"
    )
    analysis = analyze(
        parse_source(text, "k.cpp"), AnalysisOptions(assume_no_alias=True)
    )
    (fact,) = analysis.facts
    return fact.parallel, " | ".join(o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    "body",
    [
        "bump(c[i].v);",
        "bump(a[i].v);",
        "poke(&c[i].v);",
        "poke(&a[2 * i].w);",
        "bump(c[i].v); c[i].w = c[i].v * 2.0;",
        "bump(a[i].v); a[i + 1].w = 1.0;",
    ],
)
def test_a_field_of_the_iterations_element_is_the_place_written(body: str) -> None:
    parallel, why = _loop(body)
    assert parallel, why


@pytest.mark.parametrize(
    "body",
    [
        "bump(c[0].v);",
        "bump(c[i / 2].v);",
        "bump(c[i].v); c[i + 1].w = c[i + 1].v;",
        "past(&c[i].v);",
        "bump(u[i + 1].v); a[i].w = u[i].w;",
        "bump(total);",
        "bump(t[i].v[0]);",
    ],
)
def test_a_field_others_reach_stays_refused(body: str) -> None:
    parallel, why = _loop(body)
    assert not parallel
    assert why
