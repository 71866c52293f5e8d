"""A union's scalar member shares its bytes with the other members.

`c[l].o.x` of `union { double d[N]; double x; }` is `c[l].o.d[0]`: a loop over
`k` writing `d[k]` and reading `x` carries a dependence, though `x` reads as a
scalar. Such a member is compared with the loop's arrays like a field reached
through a pointer.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source

HEAD = """\
    union one { double d[64]; double x; };
    struct cell { int k; union one o; double y; };
    struct cell c[8];
    union one v[8];
    """


def _loop(body: str, var: str) -> tuple[bool, str]:
    """Whether the loop over `var` in `run` is parallel, and its reasons' text."""
    text = dedent(HEAD) + "void run(void) {\n  union one o;\n" + dedent(body) + "}\n"
    facts = analyze(parse_source(text, "k.c")).facts
    found = next(f for f in facts if f.loop.var == var)
    return found.parallel, " ".join(o.message for o in found.obstacles)


@pytest.mark.parametrize(
    "body",
    [
        "  for (int k = 0; k < 64; k++) o.d[k] = o.x + k;\n",
        "  for (int k = 0; k < 64; k++) c[3].o.d[k] = c[3].o.x + k;\n",
        "  for (int k = 0; k < 64; k++) { o.x = k; o.d[k] += 1; }\n",
        "  for (int k = 0; k < 64; k++) v[2].d[k] = v[2].x * k;\n",
    ],
)
def test_a_union_s_scalar_member_meets_its_arrays(body: str) -> None:
    parallel, why = _loop(body, "k")
    assert not parallel
    assert "union" in why


@pytest.mark.parametrize(
    "body",
    [
        # a struct's scalar member beside a union member: bytes of its own
        "  for (int k = 0; k < 64; k++) c[3].o.d[k] = c[3].y + k;\n",
        # each element's union, one member only
        "  for (int l = 0; l < 8; l++) v[l].x = l;\n",
    ],
)
def test_members_apart_from_the_union_stay_parallel(body: str) -> None:
    var = "l" if "int l" in body else "k"
    parallel, why = _loop(body, var)
    assert parallel, why
