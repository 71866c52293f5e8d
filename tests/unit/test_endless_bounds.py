"""An earlier loop that never ends at the type's end shows a later one cannot wrap.

`for (v = 1; v <= n; v++)` with an unsigned `v` runs for ever when `n` is the
type's maximum, so a later `for (i = 0; i <= n; i++)` of the same block, which
wraps only then, is reached only with `n` below it. Every case that breaks one
link of that argument keeps the later loop serial.
"""

from __future__ import annotations

import pytest
from accls.analysis import ObstacleCode, analyze_text


def _later(body: str, params: str = "size_t n, double *p") -> tuple[bool, list[str]]:
    """(parallel, shape obstacle messages) of the loop on the line marked LATER."""
    text = f"#include <stddef.h>\ndouble f({params}) {{\n{body}\n}}\n"
    line = next(no for no, t in enumerate(text.splitlines(), 1) if "/* LATER */" in t)
    result = analyze_text(text)
    (facts,) = [f for f in result.facts if f.loop.line == line]
    shape = [o.message for o in facts.obstacles if o.code is ObstacleCode.SHAPE]
    return facts.parallel, shape


_EARLIER = "  for (v = 1; v <= n; v++) *p += 1.0;\n"
_LATER = "  for (i = 0; i <= n; i++) /* LATER */ s += 2.0;\n  return s;"


@pytest.mark.parametrize(
    "body",
    [
        # n = SIZE_MAX keeps the first loop going: the second starts with n < MAX.
        f"  size_t v, i; double s = 0;\n{_EARLIER}{_LATER}",
        # one variable for both loops, as the Parallel Research Kernels write it
        "  size_t i; double s = 0;\n  for (i = 1; i <= n; i++) *p += 1.0;\n" + _LATER,
        # a falling loop that never ends with n = 0 shows n >= 1
        "  size_t v, i; double s = 0;\n  for (v = n; v >= n; v--) *p += 1.0;\n"
        "  for (i = n; i >= n; i--) /* LATER */ s += 2.0;\n  return s;",
        # a return or exit() leaves before the later loop: no other way on
        "  size_t v, i; double s = 0;\n"
        "  for (v = 1; v <= n; v++) { if (*p > 9) return 0; *p += 1.0; }\n" + _LATER,
        # statements between that leave n alone, a call that is not given it
        f"  size_t v, i; double s = 0;\n{_EARLIER}  s = *p; g(p);\n{_LATER}",
        # `i < n; i += 2` wraps only with n == SIZE_MAX too
        f"  size_t v, i; double s = 0;\n{_EARLIER}"
        "  for (i = 0; i < n; i += 2) /* LATER */ s += 2.0;\n  return s;",
    ],
)
def test_an_earlier_endless_loop_proves_the_later_one_does_not_wrap(
    body: str,
) -> None:
    parallel, shape = _later("  void g(double *);\n" + body)
    assert parallel, shape


@pytest.mark.parametrize(
    "body",
    [
        # no earlier loop: n = SIZE_MAX runs the serial loop for ever, none in parallel
        f"  size_t i; double s = 0;\n{_LATER}",
        # a `break` may end the earlier loop with n == SIZE_MAX
        "  size_t v, i; double s = 0;\n"
        "  for (v = 1; v <= n; v++) { if (*p > 9) break; *p += 1.0; }\n" + _LATER,
        # only under a condition: the later loop is reached without it
        f"  size_t v, i; double s = 0;\n  if (*p > 0)\n  {_EARLIER}{_LATER}",
        # `v < n` ends for every n
        "  size_t v, i; double s = 0;\n  for (v = 1; v < n; v++) *p += 1.0;\n" + _LATER,
        # a wider variable passes a 32-bit bound: the loop ends with n == UINT_MAX
        "  unsigned long long v; unsigned i; double s = 0;\n"
        "  for (v = 1; v <= m; v++) *p += 1.0;\n"
        "  for (i = 0; i <= m; i++) /* LATER */ s += 2.0;\n  return s;",
        # n changes between them
        f"  size_t v, i; double s = 0;\n{_EARLIER}  n = n * 2 + 1;\n{_LATER}",
        # n's address escapes: a call may change it
        f"  size_t v, i; double s = 0;\n{_EARLIER}  h(&n);\n{_LATER}",
        # the body moves its variable: it may end with n == SIZE_MAX
        "  size_t v, i; double s = 0;\n"
        "  for (v = 1; v <= n; v++) { *p += 1.0; if (*p > 9) v = n; }\n" + _LATER,
        # a pointer to the earlier loop's variable may move it
        "  size_t v, i; double s = 0; size_t *q = &v;\n"
        "  for (v = 1; v <= n; v++) { *p += 1.0; if (*p > 9) *q = n; }\n" + _LATER,
        # a label between: a `goto` reaches the later loop without the earlier
        f"  size_t v, i; double s = 0;\n  if (*p > 1) goto late;\n{_EARLIER}"
        f"  late: ;\n{_LATER}",
        # a `case` label between: the switch jumps past the earlier loop
        "  size_t v, i; double s = 0;\n  switch ((int)*p) {\n  case 0:\n"
        f"{_EARLIER}  case 1:\n{_LATER}\n  }}\n  return s;",
        # shared out, the earlier loop runs no iteration at all with n == SIZE_MAX
        "  size_t v, i; double s = 0;\n  #pragma omp parallel for\n"
        f"  for (v = 1; v <= n; v++) p[v] = 1.0;\n{_LATER}",
        # i <= n with i += 2 wraps with n == SIZE_MAX - 1 too
        f"  size_t v, i; double s = 0;\n{_EARLIER}"
        "  for (i = 0; i <= n; i += 2) /* LATER */ s += 2.0;\n  return s;",
        # the earlier loop comes after
        "  size_t v, i; double s = 0;\n"
        "  for (i = 0; i <= n; i++) /* LATER */ s += 2.0;\n"
        f"{_EARLIER}  return s;",
    ],
)
def test_a_later_loop_without_such_proof_stays_serial(body: str) -> None:
    parallel, shape = _later(
        "  void h(size_t *);\n" + body,
        params="size_t n, unsigned m, double *p",
    )
    assert not parallel
    assert any("wraps around" in m for m in shape), shape
