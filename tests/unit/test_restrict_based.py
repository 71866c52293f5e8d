"""`restrict` promises nothing about pointers *based on* the restrict one."""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, analyze_text

SOURCE = """\
double *shifted(double *p, int k);
void run(double *restrict b, double *restrict c, int n)
{
    double *p;
    INIT;
    for (int i = 0; i < n - 1; i++)
        b[i] = p[i] + 1.0;
}
"""


def _parallel(init: str) -> tuple[bool, str]:
    facts = analyze_text(SOURCE.replace("INIT", init)).facts
    loop = next(f for f in facts if f.loop.function == "run")
    return loop.parallel, " ".join(o.message for o in loop.obstacles)


@pytest.mark.parametrize(
    "init",
    [
        "p = b + 1",  # `p[i]` is `b[i + 1]`: a flow dependence across iterations
        "double *q = b; p = q + 1",  # based on `b` through another local
        "p = shifted(b, 1)",  # a call may hand back a pointer into `b`
    ],
)
def test_a_pointer_based_on_a_restrict_parameter_may_overlap_it(init: str) -> None:
    parallel, why = _parallel(init)
    assert not parallel
    assert "`p`" in why


def test_a_pointer_based_on_another_restrict_parameter_is_apart() -> None:
    parallel, why = _parallel("p = c")
    assert parallel, why


_ASSUMED = """\
double g[1024], b[1024], f[1024][3];
static void zero(double r[3]) { r[0] = 0.0; r[1] = 0.0; r[2] = 0.0; }
void run(double *a, int n)
{
    BODY
}
"""


@pytest.mark.parametrize(
    "body",
    [
        # Direct accesses: `p[i]` is `a[i + 1]`, `p[i + 1]` is `g[i + 1]`.
        "double *p = a + 1; for (int i = 0; i < n; i++) p[i] = a[i] * 2.0;",
        "double *p = &g[0]; for (int i = 0; i < 1023; i++) g[i] = p[i + 1];",
        # A callee writes the row `f[i]`, which the loop reads as `p[3 * i + 3]`.
        "double *p = &f[0][0];"
        " for (int i = 0; i < 1023; i++) { b[i] = p[3 * i + 3]; zero(f[i]); }",
        "double (*q)[3] = f;"
        " for (int i = 0; i < 1023; i++) { b[i] = q[i + 1][0]; zero(f[i]); }",
    ],
)
def test_assume_no_alias_never_lifts_pointers_based_on_one_object(body: str) -> None:
    """The flag treats the arguments as `restrict`: nothing about `p = a + 1`."""
    text = _ASSUMED.replace("BODY", body)
    options = AnalysisOptions(assume_no_alias=True)
    loop = next(f for f in analyze_text(text, options=options).facts)
    assert not loop.parallel
    assert not any(o.assumption for o in loop.obstacles)


def test_assume_no_alias_still_lifts_two_arguments() -> None:
    text = (
        _ASSUMED.replace("BODY", "for (int i = 0; i < n; i++) a[i] = b[i + 1] * 2.0;")
        .replace("double *a,", "double *a, double *b,")
        .replace(", b[1024]", "")
    )
    options = AnalysisOptions(assume_no_alias=True)
    assert analyze_text(text, options=options).facts[0].parallel


@pytest.mark.parametrize("init", ["double *q = v.data();", "double *q = &v[0];"])
def test_assume_no_alias_never_lifts_a_pointer_into_a_vector(init: str) -> None:
    text = (
        "#include <vector>\n"
        "void shift(std::vector<double> &v, int n) {\n"
        f"    {init}\n"
        "    for (int i = 0; i < n - 1; i++) v[i] = q[i + 1];\n"
        "}\n"
    )
    options = AnalysisOptions(assume_no_alias=True)
    loop = analyze_text(text, "shift.cpp", options=options).facts[0]
    assert not loop.parallel
    assert not any(o.assumption for o in loop.obstacles)
