"""Tile loops whose every tile indexes an object from the tile on cannot wrap.

`for (ii = 0; ii < n; ii += 64)` with a `size_t ii` wraps only when its last
tile is within 64 of SIZE_MAX; the tile before it then runs an inner loop from
`ii` that touches `a[i]` with `i` past 2^63, which no object has. Every case that
breaks one link of that argument keeps the tile loop serial.
"""

from __future__ import annotations

import pytest
from accls.analysis import ObstacleCode, analyze_text

_PRELUDE = "#include <stddef.h>\n#define MIN(a, b) ((a) < (b) ? (a) : (b))\n"


def _tile(body: str) -> tuple[bool, list[str]]:
    """(parallel, shape obstacle messages) of the function's outermost loop."""
    text = (
        f"{_PRELUDE}void f(size_t n, size_t k, double *a, double *s) {{\n"
        f"  void g(size_t *);\n  size_t ii, i; unsigned u;\n{body}\n}}\n"
    )
    facts = analyze_text(text).facts[0]
    shape = [o.message for o in facts.obstacles if o.code is ObstacleCode.SHAPE]
    return facts.parallel, shape


@pytest.mark.parametrize(
    "body",
    [
        "  for (ii = 0; ii < n; ii += 64)\n"
        "    for (i = ii; i < MIN(n, ii + 64); i++) a[i] = 2.0 * a[i];",
        # the two limits as a `&&`, and statements before the inner loop
        "  for (ii = 0; ii < n; ii += 64) {\n    double t = 0.5 * ii;\n"
        "    for (i = ii; i < n && i < ii + 64; i++) a[i + 1] = t;\n  }",
        "  for (ii = 0; ii <= n; ii += 32)\n"
        "    for (i = ii; i <= MIN(n, ii + 31); i++) a[i] = 2.0;",
    ],
)
def test_a_tile_loop_whose_tiles_index_an_object_is_parallel(body: str) -> None:
    parallel, shape = _tile(body)
    assert parallel, shape


@pytest.mark.parametrize(
    "body",
    [
        # nothing indexed from the tile: n = SIZE_MAX - 1 wraps 2^64 - 64 to 0
        "  for (ii = 0; ii < n; ii += 64)\n"
        "    for (i = ii; i < MIN(n, ii + 64); i++) *s += 2.0;",
        # the inner loop starts at 0: its a[i] says nothing of ii
        "  for (ii = 0; ii < n; ii += 64)\n    for (i = 0; i < 64; i++) a[i] = 2.0;",
        # the inner loop starts at n: it never runs
        "  for (ii = 0; ii < n; ii += 64)\n"
        "    for (i = n; i < MIN(n, ii + 64); i++) a[i] = 2.0;",
        # only under a condition
        "  for (ii = 0; ii < n; ii += 64)\n    if (*s > 0)\n"
        "      for (i = ii; i < MIN(n, ii + 64); i++) a[i] = 2.0;",
        # a `continue` may skip it
        "  for (ii = 0; ii < n; ii += 64) {\n    if (*s > 0) continue;\n"
        "    for (i = ii; i < MIN(n, ii + 64); i++) a[i] = 2.0;\n  }",
        # ii + 127 wraps in the tile before the last: that tile touches nothing
        "  for (ii = 0; ii < n; ii += 64)\n"
        "    for (i = ii; i < ii + 128; i++) a[i] = 2.0;",
        # the first tile may be the last: k near SIZE_MAX
        "  for (ii = k; ii < n; ii += 64)\n"
        "    for (i = ii; i < MIN(n, ii + 64); i++) a[i] = 2.0;",
        # a 32-bit inner variable drops the tile's high bits
        "  for (ii = 0; ii < n; ii += 64)\n"
        "    for (u = ii; u < MIN(n, ii + 64); u++) a[u] = 2.0;",
        # a `break` before the access may leave the tile touching nothing
        "  for (ii = 0; ii < n; ii += 64)\n"
        "    for (i = ii; i < MIN(n, ii + 64); i++) { if (*s > i) break; a[i] = 2.0; }",
        # the inner variable is moved before the access
        "  for (ii = 0; ii < n; ii += 64)\n"
        "    for (i = ii; i < MIN(n, ii + 64); i++) { i = 3; a[i] = 2.0; }",
        "  for (ii = 0; ii < n; ii += 64)\n"
        "    for (i = ii; i < MIN(n, ii + 64); i++) { g(&i); a[i] = 2.0; }",
    ],
)
def test_a_tile_loop_without_such_index_stays_serial(body: str) -> None:
    parallel, shape = _tile(body)
    assert not parallel
    assert any("wraps around" in m for m in shape), shape
