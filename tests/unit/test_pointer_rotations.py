"""Local pointers that only hold parameters or blocks: copies and swapped buffers."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze_text

STEP = dedent(
    """\
    #include <stdlib.h>
    static void step(double *a, double *b, int n, int iters)
    {{
        {setup}
        for (int it = 0; it < iters; it++) {{
            for (int i = 1; i < n - 1; i++) /* sweep */
                out[i] = (in[i - 1] + in[i + 1]) / 2;
            {swap}
        }}
    }}
    int main(void)
    {{
        int n = 1000;
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        step(x, {second}, n, 10);
        return 0;
    }}
    """
)

MAIN = dedent(
    """\
    #include <stdlib.h>
    int main(void)
    {{
        int n = 1000;
        double *u = malloc(n * sizeof *u), *v = {second};
        {extra}
        for (int it = 0; it < 10; it++) {{
            for (int i = 1; i < n - 1; i++) /* sweep */
                v[i] = (u[i - 1] + u[i + 1]) / 2;
            {swap}
        }}
        return 0;
    }}
    """
)

SWAP = "double *t = in; in = out; out = t;"


def _sweep(text: str) -> tuple[bool, str]:
    marker = next(n for n, line in enumerate(text.split("\n"), 1) if "sweep" in line)
    found = [f for f in analyze_text(text, "t.c").facts if f.loop.span.line == marker]
    assert len(found) == 1
    return found[0].parallel, " ".join(o.message for o in found[0].obstacles)


@pytest.mark.parametrize(
    ("setup", "swap"),
    [
        ("double *in = a, *out = b;", ""),
        ("double *in = a, *out = b;", SWAP),
        ("double *in = a, *out = b;", "double *t = out; out = in; in = t;"),
    ],
)
def test_pointers_holding_distinct_arguments_are_apart(setup: str, swap: str) -> None:
    parallel, why = _sweep(STEP.format(setup=setup, swap=swap, second="y"))
    assert parallel, why


@pytest.mark.parametrize(
    ("setup", "swap", "second"),
    [
        ("double *in = a, *out = b;", SWAP, "x"),  # the same buffer twice
        ("double *in = a, *out = b;", "in = out;", "y"),  # both end up `b`
        ("double *in = a, *out = b;", "double *t = in; in = out; out = in;", "y"),
        ("double *in = a, *out = in;", SWAP, "y"),
        ("double *in = a + 1, *out = a;", "", "y"),
        ("double *in = a, *out = b;", "double *t = in; in = out; a = t;", "y"),
    ],
)
def test_pointers_that_may_meet_stay_refused(
    setup: str, swap: str, second: str
) -> None:
    parallel, why = _sweep(STEP.format(setup=setup, swap=swap, second=second))
    assert not parallel
    assert "may overlap" in why


def test_two_allocated_blocks_swapped_in_turn_are_apart() -> None:
    text = MAIN.format(
        second="malloc(n * sizeof *v)", extra="", swap="double *t = u; u = v; v = t;"
    )
    parallel, why = _sweep(text)
    assert parallel, why


@pytest.mark.parametrize(
    ("second", "extra", "swap"),
    [
        ("u", "", "double *t = u; u = v; v = t;"),
        ("malloc(n * sizeof *v)", "", "double *t = u; u = v; v = u;"),
        ("malloc(n * sizeof *v)", "", "u = v;"),
        ("malloc(n * sizeof *v)", "v = u;", "double *t = u; u = v; v = t;"),
        ("malloc(n * sizeof *v)", "double *w = u;", "double *t = u; u = v; v = t;"),
    ],
)
def test_blocks_that_may_meet_stay_refused(second: str, extra: str, swap: str) -> None:
    text = MAIN.format(second=second, extra=extra, swap=swap)
    if "w = u" in extra:
        text = text.replace("v[i] = (u[i - 1]", "w[i] = (v[i - 1]")
    parallel, why = _sweep(text)
    assert not parallel
    assert "overlap" in why or "dependence" in why


THIRD = dedent(
    """\
    #include <stdlib.h>
    static void step(double *a, double *b, double *c, int n)
    {{
        double *in = a, *out = b;
        for (int it = 0; it < 10; it++) {{
            for (int i = 1; i < n - 1; i++) /* sweep */
                out[i] = in[i - 1] + c[i];
            double *t = in; in = out; out = t;
        }}
    }}
    int main(void)
    {{
        int n = 1000;
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        double *z = malloc(n * sizeof *z);
        step(x, y, {third}, n);
        return 0;
    }}
    """
)


def test_a_third_array_apart_from_both_swapped_buffers_is_apart() -> None:
    parallel, why = _sweep(THIRD.format(third="z"))
    assert parallel, why


@pytest.mark.parametrize("third", ["x", "y"])
def test_a_third_array_that_is_one_of_the_buffers_is_refused(third: str) -> None:
    parallel, why = _sweep(THIRD.format(third=third))
    assert not parallel
    assert "may overlap" in why
