"""Facts of the `if` around a nest: `if (k <= m) { ... a[i*m + j], j < k ... }`."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

NEST = """\
    for (int i = 0; i < n; i++)
      for (int j = 0; j < k; j++) a[i * m + j] = 1.0;
"""


def _outer(src: str) -> tuple[bool, str]:
    found = analyze_text(src).facts
    loop = next(f for f in found if f.loop.function == "run" and f.loop.var == "i")
    reasons = " ".join([*(o.message for o in loop.obstacles), *loop.call_effects])
    return loop.parallel, reasons


def _run(body: str) -> str:
    return f"void run(int n, int m, int k, int c, double *restrict a) {{\n{body}}}\n"


@pytest.mark.parametrize(
    "body",
    [
        f"  if (k <= m) {{\n{NEST}  }}\n",
        f"  if (n > 0 && k <= m) {{\n{NEST}  }}\n",
        f"  if (m >= k)\n{NEST}",
        f"  if (k <= m) {{\n    a[0] = 2.0;\n    if (n > 1) {{\n{NEST}    }}\n  }}\n",
    ],
)
def test_an_if_around_the_nest_bounds_its_columns(body: str) -> None:
    parallel, why = _outer(_run(body))
    assert parallel, why
    assert "inside `if (" in why


@pytest.mark.parametrize(
    "body",
    [
        # The guard does not hold around the nest.
        f"  if (k <= m) {{ a[0] = 0.0; }}\n{NEST}",
        f"  if (k > m) {{ a[0] = 0.0; }} else {{ c = 1; }}\n{NEST}",
        # Either side of an `||` may be the one that held.
        f"  if (k <= m || c) {{\n{NEST}  }}\n",
        # The names change after the test.
        f"  if (k <= m) {{\n    k = k + c;\n{NEST}  }}\n",
        f"  for (int t = 0; t < 2; t++) {{\n    if (k <= m) {{\n{NEST}    }}\n"
        "    k += c;\n  }\n",
        # A `case` label lets the `switch` enter the arm without the test.
        f"  switch (c) {{\n  case 0:\n    if (k <= m) {{\n  case 1:\n{NEST}    }}\n"
        "  }\n",
    ],
)
def test_a_guard_that_may_not_hold_in_the_nest_proves_nothing(body: str) -> None:
    parallel, why = _outer(_run(body))
    assert not parallel, why


def test_a_goto_into_the_arm_skips_the_test() -> None:
    body = f"  if (c) goto in;\n  if (k <= m) {{\n    a[0] = 0.0;\n  in:\n{NEST}  }}\n"
    parallel, why = _outer(_run(body))
    assert not parallel, why
