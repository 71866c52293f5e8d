"""A callee reading through a parameter the caller's every call passes apart.

`generation(cur, nxt)` with `to[i][j] = rule(neighbours(from, i, j))`: the
loop writes `to` and the callee reads `from`. Every call of `generation`
passes two distinct arrays, the rule that already clears the loop's own
`to[i][j] = from[i][j]`; a callee's read is tested by the same rule. One call
passing one array twice, or two pointers into one, keeps the loop refused.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source

_HEAD = """\
#define W 16
#define H 8
static unsigned char cur[H][W], nxt[H][W];
static unsigned char flat_a[H * W], flat_b[H * W];
static int around(unsigned char (*g)[W], int i, int j) {
  return g[(i + 1) & (H - 1)][j] + g[i][(j + 1) & (W - 1)];
}
static int below(const unsigned char *g, int i, int j) {
  return g[((i + 1) & (H - 1)) * W + j];
}
static void step(unsigned char (*from)[W], unsigned char (*to)[W]) {
  for (int i = 0; i < H; i++) {
    for (int j = 0; j < W; j++) {
      to[i][j] = around(from, i, j) == 3;
    }
  }
}
static void step_flat(const unsigned char *from, unsigned char *to) {
  for (int i = 0; i < H; i++) {
    for (int j = 0; j < W; j++) {
      to[i * W + j] = below(from, i, j);
    }
  }
}
"""


def _verdicts(main: str) -> dict[int, bool]:
    text = _HEAD + dedent(main)
    facts = analyze(parse_source(text, "k.c")).facts
    return {f.loop.line: f.parallel for f in facts if f.loop.var == "i"}


def test_distinct_arrays_at_every_call_clear_the_callee_read() -> None:
    got = _verdicts(
        """\
        int main(void) {
          step(cur, nxt);
          step(nxt, cur);
          step_flat(flat_a, flat_b);
          return 0;
        }
        """
    )
    assert got == {12: True, 19: True}


@pytest.mark.parametrize(
    "calls",
    [
        "step(cur, cur); step_flat(flat_a, flat_a);",
        "step(cur, cur + 1); step_flat(flat_a, flat_a + W);",
    ],
    ids=["one array twice", "two pointers into one array"],
)
def test_one_object_at_some_call_keeps_the_loop_refused(calls: str) -> None:
    got = _verdicts(
        f"""\
        int main(void) {{
          step(cur, nxt);
          step_flat(flat_a, flat_b);
          {calls}
          return 0;
        }}
        """
    )
    assert got == {12: False, 19: False}
