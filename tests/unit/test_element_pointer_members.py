"""`bl[l].a[k]`: a pointer member each element's own block is tested as `bl.a[l][k]`."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source

HEAD = """\
    #include <stdlib.h>
    struct blk { double *a; double *b; int n; };
    static struct blk bl[64];
    double *gbuf;
    void g(void *p);
    """
INIT = "  for (int l = 0; l < 64; l++) bl[l].a = malloc(16 * sizeof(double));\n"
LOOP = """\
    void run(void) {
      for (int l = 0; l < 64; l++)
        for (int k = 0; k < 16; k++) bl[l].a[k] = l + k;
    }
    """


def _outer(init: str, head: str = HEAD, loop: str = LOOP) -> tuple[bool, str]:
    """Whether the loop over `l` in `run` is parallel, and its reasons' text."""
    text = dedent(head) + "void init(double *p) {\n" + dedent(init) + "}\n"
    facts = analyze(parse_source(text + dedent(loop), "k.c")).facts
    outer = next(f for f in facts if f.loop.var == "l" and f.loop.function == "run")
    return outer.parallel, " ".join(o.message for o in outer.obstacles)


@pytest.mark.parametrize(
    "init",
    [
        INIT,
        # a cast, calloc, a block freed and allocated again, another member
        "  for (int l = 0; l < 64; l++) {\n"
        "    bl[l].a = (double *)calloc(16, sizeof(double));\n"
        "    bl[l].b = p;\n    bl[l].n = l;\n  }\n"
        "  free(bl[3].a);\n  bl[3].a = malloc(16 * sizeof(double));\n",
    ],
)
def test_each_element_owns_its_block(init: str) -> None:
    parallel, why = _outer(init)
    assert parallel, why


def test_a_local_array_of_elements_allocated_in_the_function() -> None:
    loop = """\
        void run(void) {
          struct blk own[8];
          for (int l = 0; l < 8; l++) own[l].a = malloc(16 * sizeof(double));
          for (int l = 0; l < 8; l++)
            for (int k = 0; k < 16; k++) own[l].a[k] = l + k;
          g(own[0].a);
        }
        """
    facts = analyze(parse_source(dedent(HEAD) + dedent(loop), "k.c")).facts
    loops = [f for f in facts if f.loop.var == "l"]
    # `g(own[0].a)` hands a block to code that may keep it: not proved.
    assert not loops[1].parallel
    facts = analyze(
        parse_source(dedent(HEAD) + dedent(loop).replace("g(own[0].a);", ""), "k.c")
    ).facts
    assert all(f.parallel for f in facts if f.loop.var == "l")


@pytest.mark.parametrize(
    "init",
    [
        INIT + "  bl[3].a = bl[2].a;\n",  # two elements, one block
        "  for (int l = 0; l < 64; l++) bl[l].a = p;\n",  # a parameter's block
        "  for (int l = 0; l < 64; l++) bl[l].a = gbuf;\n",  # a global's block
        # one block at overlapping offsets (rows of 16 one element apart)
        "  double *buf = malloc(80 * sizeof(double));\n"
        "  for (int l = 0; l < 64; l++) bl[l].a = buf + l;\n",
        INIT + "  bl[5].a = p;\n",  # re-pointed after the allocation
        INIT + "  g(bl);\n",  # the elements handed to unknown code
        INIT + "  bl[1] = bl[0];\n",  # an element copied whole
        INIT + "  g(&bl[2].a);\n",  # the pointer's slot handed over
        INIT + "  gbuf = bl[2].a;\n",  # the block reachable by another name
        INIT + "  gbuf = &bl[2].a[0];\n",
        INIT.replace("bl[l].a = malloc", "gbuf = bl[l].a = malloc"),
        INIT + "  bl[4].a += 1;\n",  # moved into the next block's neighbourhood
    ],
)
def test_elements_pointers_not_proved_apart_stay_serial(init: str) -> None:
    parallel, why = _outer(init)
    assert not parallel
    assert "not proved distinct" in why or "may overlap" in why, why


def test_a_macro_naming_the_elements_stays_serial() -> None:
    head = HEAD + "    #define AT(l, k) bl[l].a[k]\n"
    parallel, _ = _outer(INIT + "  gbuf = &AT(2, 0);\n", head)
    assert not parallel


def test_a_header_included_after_the_array_stays_serial() -> None:
    parallel, _ = _outer(INIT, HEAD + '    #include "ops.h"\n')
    assert not parallel


def test_a_macro_taking_an_address_of_an_element_stays_serial() -> None:
    head = HEAD + "    #define PTR(x) (&(x))\n"
    parallel, _ = _outer(INIT + "  gbuf = PTR(bl[2].a[0]);\n", head)
    assert not parallel


def test_a_global_other_files_see_stays_serial() -> None:
    parallel, why = _outer(INIT, HEAD.replace("static struct blk", "struct blk"))
    assert not parallel
    assert "not proved distinct" in why


def test_the_next_elements_block_is_a_dependence() -> None:
    loop = LOOP.replace("bl[l].a[k] = l + k", "bl[l].a[k] = bl[l + 1].a[k]")
    parallel, _ = _outer(INIT, loop=loop.replace("l < 64", "l < 63"))
    assert not parallel


def test_another_name_read_in_the_loop_is_apart_from_the_blocks() -> None:
    loop = LOOP.replace("bl[l].a[k] = l + k", "bl[l].a[k] = gbuf[k] + bl[l].n")
    parallel, why = _outer(INIT, loop=loop)
    assert parallel, why
