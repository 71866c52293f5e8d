"""Points-to: pointer tables, pointers derived from one another, and call sites."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze_text
from accls.analysis.call_sites import distinct_at_call_sites
from accls.frontend import parse_source

KERNEL = """\
static void relax(double *dst, const double *src, int n) {
  for (int i = 1; i < n - 1; i++) dst[i] = 0.5 * (src[i - 1] + src[i + 1]);
}
"""


def verdict(text: str, line: int) -> tuple[bool, list[str], list[str]]:
    """Parallel?, the obstacle codes and the assumptions of the loop at `line`."""
    analysis = analyze_text(dedent(text), "t.c")
    for facts in analysis.facts:
        if facts.loop.line == line:
            codes: list[str] = [o.code for o in facts.obstacles]
            return facts.parallel, codes, list(facts.assumptions)
    raise AssertionError(f"no loop at line {line}")


def distinct(text: str) -> tuple[str, ...] | None:
    source = parse_source(dedent(text), "t.c")
    fn = source.function("relax")
    assert fn is not None
    return distinct_at_call_sites(fn, "dst", "src", source)


@pytest.mark.parametrize(
    "calls",
    [
        "double a[8], b[8]; relax(a, b, 8);",
        "relax(g1, g2, 8);",
        "double *p = malloc(64), *q = malloc(64); relax(p, q, 8);",
        "double *p = malloc(64); double loc[8]; relax(loc, (double *)p, 8);",
        "relax(s.x, s.y, 8);",
    ],
)
def test_every_call_passing_distinct_objects_proves_them_apart(calls: str) -> None:
    text = (
        "#include <stdlib.h>\ndouble g1[8], g2[8];\n"
        "struct two { double x[8]; double y[8]; } s;\n"
        + KERNEL
        + f"int main(void) {{ {calls} return 0; }}\n"
    )
    assert distinct(text)


@pytest.mark.parametrize(
    "calls",
    [
        "relax(g1, g1, 8);",
        "relax(g1 + 1, g1, 7);",
        "relax(&g1[1], g1, 7);",
        "relax(g1, g2, 8); relax(g2 + 2, g2, 6);",
        "double *p = malloc(64); double *q = p; relax(p, q, 8);",
        "relax(h, g1, 8);",  # a global pointer may point anywhere
        "double *p = g1; relax(&p[0], g1, 8);",  # `&p[k]` is into what `p` holds
        "struct ptrs { double *x, *y; } t; t.x = t.y = g1; relax(t.x, t.y, 8);",
    ],
)
def test_one_call_passing_overlapping_objects_refutes_it(calls: str) -> None:
    text = (
        "#include <stdlib.h>\ndouble g1[8], g2[8]; double *h;\n"
        + KERNEL
        + f"int main(void) {{ {calls} return 0; }}\n"
    )
    assert distinct(text) is None


def test_unknown_callers_refute_it() -> None:
    exported = KERNEL.replace("static ", "")
    body = "double g1[8], g2[8];\n{k}int main(void) {{ {c} return 0; }}\n"
    # Not static: another file may call it with anything.
    assert distinct(body.format(k=exported, c="relax(g1, g2, 8);")) is None
    # Its address is taken: calls through the pointer are not seen.
    taken = "void (*fp)(double *, const double *, int) = relax; relax(g1, g2, 8);"
    assert distinct(body.format(k=KERNEL, c=taken)) is None
    # A macro may call it with anything.
    macro = "#define TWICE(x) relax(x, x, 8)\n" + KERNEL
    assert distinct(body.format(k=macro, c="relax(g1, g2, 8);")) is None
    # Named in a comment, or inside a longer string: still every call is seen.
    noted = "/* relax is the kernel */\n" + KERNEL
    said = 'puts("relax the grid"); relax(g1, g2, 8);'
    assert distinct(body.format(k=noted, c=said))
    # A string that is the name itself may be an alias or a lookup of it
    # (`__attribute__((alias("relax")))`, `dlsym`): hidden_names refutes it.
    looked_up = 'puts("relax"); relax(g1, g2, 8);'
    assert distinct(body.format(k=noted, c=looked_up)) is None


def test_parameters_of_a_static_caller_follow_its_own_calls() -> None:
    caller = (
        "static void twice(double *x, double *y) { relax(x, y, 8); }\n"
        "static void own(double *x) { double t[8]; relax(x, t, 8); }\n"
    )
    good = "double g1[8], g2[8];\n" + KERNEL + caller
    good += "int main(void) { twice(g1, g2); own(g1); return 0; }\n"
    assert distinct(good) == ("line 5", "line 6")
    bad = good.replace("twice(g1, g2)", "twice(g1, g1)")
    assert distinct(bad) is None


def test_the_loop_is_parallel_and_names_the_calls() -> None:
    text = "double g1[8], g2[8];\n" + KERNEL
    text += "int main(void) { relax(g1, g2, 8); return 0; }\n"
    parallel, codes, assumptions = verdict(text, 3)
    assert parallel
    assert not codes
    assert any("every call of `relax()` (line 5)" in a for a in assumptions)


def test_rows_of_one_buffer_in_a_pointer_table_are_refused() -> None:
    text = """\
    void sweep(double *lev[2], int n) {
      for (int i = 1; i < n - 1; i++) lev[1][i] = lev[0][i - 1] + lev[0][i + 1];
    }
    void step(double **g, int n) {
      for (int i = 1; i < n - 1; i++) g[1][i] = g[0][i - 1] + g[0][i + 1];
    }
    """
    for line in (2, 5):
        parallel, codes, _ = verdict(text, line)
        assert not parallel
        assert "alias" in codes


def test_rows_allocated_apart_or_promised_restrict_are_parallel() -> None:
    text = """\
    #include <stdlib.h>
    void sweep(double *restrict *lev, int n) {
      for (int i = 1; i < n - 1; i++) lev[1][i] = lev[0][i - 1] + lev[0][i + 1];
    }
    int main(void) {
      double *rows[2];
      rows[0] = malloc(80); rows[1] = malloc(80);
      for (int i = 1; i < 9; i++) rows[1][i] = rows[0][i - 1] + rows[0][i + 1];
      return 0;
    }
    """
    for line in (3, 8):
        parallel, codes, _ = verdict(text, line)
        assert parallel, codes


def test_a_pointer_derived_from_another_aliases_it() -> None:
    text = """\
    #include <stdlib.h>
    int main(void) {
      double *p = malloc(800);
      double *q = p + 1;
      for (int i = 0; i < 99; i++) q[i] = q[i] + p[i];
      return 0;
    }
    """
    parallel, codes, _ = verdict(text, 5)
    assert not parallel
    assert "alias" in codes
