"""`b[l].lo[k]`: an inline array member of an element is tested as `b.lo[l][k]`."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source

HEAD = """\
    struct box { double lo[3], hi[3]; int n; };
    struct blk { double *a; };
    struct box b[64];
    struct blk bl[64];
    int idx[64];
    void g(double *p);
    """


def _outer(body: str) -> tuple[bool, str]:
    """Whether the loop over `l` is parallel, and its reasons' text."""
    loop = "void run(void) {\n  for (int l = 0; l < 63; l++)\n" + dedent(body) + "}\n"
    facts = analyze(parse_source(dedent(HEAD) + loop, "k.c")).facts
    outer = next(f for f in facts if f.loop.var == "l")
    return outer.parallel, " ".join(o.message for o in outer.obstacles)


@pytest.mark.parametrize(
    "body",
    [
        "    for (int k = 0; k < 3; k++) b[l].lo[k] = l + k;\n",
        "    for (int k = 0; k < 3; k++) b[l].hi[k] = b[l].lo[k] * 2;\n",
        # a scalar member of the same element: bytes of its own
        "  { b[l].n = l; for (int k = 0; k < 3; k++) b[l].hi[k] = b[l].n; }\n",
    ],
)
def test_each_element_member_is_storage_of_its_own(body: str) -> None:
    parallel, why = _outer(body)
    assert parallel, why


@pytest.mark.parametrize(
    "body",
    [
        # the next element's member: a distance of 1
        "    for (int k = 0; k < 3; k++) b[l].lo[k] = b[l + 1].lo[k];\n",
        "    for (int k = 0; k < 3; k++) b[l + 1].lo[k] = b[l].lo[k] + 1;\n",
        # an index array may repeat an element
        "    for (int k = 0; k < 3; k++) b[idx[l]].lo[k] += 1;\n",
        # every element's member at one element
        "    for (int k = 0; k < 3; k++) b[0].lo[k] += b[l].lo[k];\n",
        # the whole element, or the member's address, reaches the same bytes
        "  { b[l + 1] = b[l]; for (int k = 0; k < 3; k++) b[l].lo[k] = 1; }\n",
        "  { g(b[l + 1].lo); for (int k = 0; k < 3; k++) b[l].lo[k] = 1; }\n",
        # a pointer member: nothing proves the elements' pointers apart
        "    for (int k = 0; k < 3; k++) bl[l].a[k] = l;\n",
    ],
)
def test_elements_that_meet_stay_serial(body: str) -> None:
    parallel, _ = _outer(body)
    assert not parallel


POINTERS = """\
    struct box { double lo[3], hi[3]; int n; };
    struct box *gb;
    void run(struct box *q, struct box *r, struct box **t, int n) {
      for (int l = 0; l < n - 1; l++)
    BODY}
    """


@pytest.mark.parametrize(
    ("body", "parallel"),
    [
        # the block one pointer reaches: distinct elements
        ("    for (int k = 0; k < 3; k++) q[l].hi[k] = q[l].lo[k] + l;\n", True),
        ("    for (int k = 0; k < 3; k++) gb[l].hi[k] = 2 * gb[l].lo[k];\n", True),
        ("    for (int k = 0; k < 3; k++) q[l].lo[k] = q[l + 1].lo[k];\n", False),
        # another pointer may reach the same block
        ("    for (int k = 0; k < 3; k++) q[l].lo[k] = r[l].lo[k] + 1;\n", False),
        # a table of pointers may hold one block twice
        ("    for (int k = 0; k < 3; k++) t[l][0].lo[k] = l;\n", False),
        # the pointer moves inside the loop
        ("  { for (int k = 0; k < 3; k++) q[l].lo[k] = l; q = r; }\n", False),
    ],
)
def test_elements_of_a_pointers_block(body: str, parallel: bool) -> None:
    text = dedent(POINTERS).replace("BODY", body)
    facts = analyze(parse_source(text, "k.c")).facts
    outer = next(f for f in facts if f.loop.var == "l")
    assert outer.parallel is parallel, [o.message for o in outer.obstacles]


def test_the_reason_names_the_members_as_written() -> None:
    parallel, why = _outer(
        "    for (int k = 0; k < 3; k++) b[l].lo[k] = b[l + 1].lo[k];\n"
    )
    assert not parallel
    assert "dependence on `b[l+1].lo`" in why, why
    assert "distance 1" in why, why
    assert "b.lo" not in why, why


@pytest.mark.parametrize(
    "body",
    [
        # `b[l].hi[3]` is `b[l + 1].lo[0]`: past the member's end lies the next element
        "    for (int k = 0; k < 3; k++) b[l].hi[k] = b[l].hi[k + 1] * 2;\n",
        # `b[l].lo[-1]` is in `b[l - 1]`
        "    for (int k = 0; k < 3; k++) b[l].lo[k] = b[l].lo[k - 1] + 1;\n",
    ],
)
def test_a_subscript_past_the_members_end_stays_serial(body: str) -> None:
    parallel, why = _outer(body)
    assert not parallel
    assert "next row" in why or "previous row" in why or "below 0" in why


def test_a_subscript_within_the_member_is_parallel() -> None:
    parallel, why = _outer(
        "    for (int k = 0; k < 2; k++) b[l].hi[k] = b[l].hi[k + 1] * 2;\n"
    )
    assert parallel, why
