"""Elements picked by an index argument: `randn(seed, x)` updates `seed[x]` only."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze_text

CALLEES = dedent(
    """\
    int g;
    static double next(int *seed, int k)
    {
        seed[k] = (seed[k] * 1103515245 + 12345) % 2147483647;
        return seed[k] / 2147483647.0;
    }
    static double twice(int *seed, int index)
    {
        double u = next(seed, index);
        return u + next(seed, index);
    }
    static double two(int *seed, int k)
    {
        seed[k] = seed[k + 1] + 1;
        return seed[k];
    }
    static double glob(int *seed, int k)
    {
        seed[g] = k;
        return seed[g];
    }
    static double copied(int *seed, int k)
    {
        int *q = seed;
        q[k] = 1;
        return seed[k];
    }
    static double moved(int *seed, int k)
    {
        k = k + 1;
        seed[k] = 1;
        return seed[k];
    }
    static double stepped(int *seed, int k)
    {
        seed++;
        seed[k] = 1;
        return seed[k];
    }
    """
)


def _verdict(
    body: str, params: str = "int *seed, double *x, int n"
) -> tuple[bool, str]:
    text = CALLEES + f"void f({params})\n{{\n    for (int i = 0; i < n; i++)\n"
    text += f"        {body}\n}}\n"
    found = [f for f in analyze_text(text, "t.c").facts if f.loop.function == "f"]
    assert len(found) == 1
    facts = found[0]
    return facts.parallel, " ".join(o.message for o in facts.obstacles)


@pytest.mark.parametrize(
    "body",
    [
        "x[i] = next(seed, i);",
        "x[i] = twice(seed, i);",
        "x[i] = next(seed, 2 * i + 1);",
    ],
)
def test_a_callee_updating_the_iterations_element_is_parallel(body: str) -> None:
    parallel, why = _verdict(body)
    assert parallel, why


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("x[i] = next(seed, 0);", "dependence on `seed`"),
        ("x[i] = next(seed, i / 2);", "writes through `seed`"),
        ("x[i] = two(seed, i);", "writes through `seed`"),
        ("x[i] = glob(seed, i);", "writes through `seed`"),
        ("x[i] = copied(seed, i);", "`copied()`"),
        ("x[i] = moved(seed, i);", "writes through `seed`"),
        ("x[i] = stepped(seed, i);", "`stepped()`"),
        ("x[i] = next(seed, i) + seed[i + 1];", "dependence on `seed`"),
        ("x[i] = twice(seed, i) + twice(seed, n - i);", "dependence on `seed`"),
    ],
)
def test_elements_other_iterations_touch_stay_refused(body: str, reason: str) -> None:
    parallel, why = _verdict(body)
    assert not parallel
    assert reason in why


def test_an_array_of_another_element_type_is_not_indexed_alike() -> None:
    parallel, _ = _verdict(
        "x[i] = next((int *)bytes, i);", "char *bytes, double *x, int n"
    )
    assert not parallel
    parallel, _ = _verdict("x[i] = next(bytes, i);", "long *bytes, double *x, int n")
    assert not parallel


def test_the_updated_element_is_still_tested_for_aliasing() -> None:
    parallel, why = _verdict("x[i] = next(seed, i);", "int *seed, int *x, int n")
    assert not parallel
    assert "`seed`" in why
    assert "may overlap" in why
