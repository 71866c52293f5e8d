"""`restrict` promises nothing about pointers *based on* the restrict one."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

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
