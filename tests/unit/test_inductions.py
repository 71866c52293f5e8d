"""Counters read as values: never reductions; induction variables and their rewrite."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, ScalarClass, analyze_text
from accls.frontend import RedOp
from accls.suggest import Dialect, SuggestOptions, Target
from accls.suggest.inductions import (
    parallel_after_rewrite,
    rewrite_all,
    rewrite_inductions,
)

PARAMS = (
    "int n, const double *restrict a, double *restrict b, const int *restrict k, "
    "double *restrict h"
)
HEADER = "static double sq(double v) { return v * v; }\n"
OMP = SuggestOptions(Dialect.OPENMP, Target.CPU)


def wrap(body: str) -> str:
    return f"{HEADER}double f({PARAMS}) {{\n{dedent(body)}\n}}\n"


def first(body: str) -> LoopFacts:
    return analyze_text(wrap(body)).facts[0]


def reduction_of(loop: LoopFacts, name: str) -> RedOp | None:
    found = [s for s in loop.scalars if s.name == name]
    if found and found[0].cls is ScalarClass.REDUCTION:
        return found[0].op
    return None


def codes(loop: LoopFacts) -> set[tuple[str, str | None]]:
    return {(o.code, o.variable) for o in loop.obstacles}


# ----- the value of an update is a read: never a reduction -------------------------

HIDDEN_READS = {
    "post-increment as a subscript": "b[i] = a[t++];",
    "pre-increment as a subscript": "b[i] = a[++t];",
    "compound assignment in a subscript": "b[i] = a[(t += 2) % n];",
    "compound assignment as a call argument": "b[i] = sq(s += a[i]);",
    "compound assignment in a condition": "if ((s += a[i]) > 0) b[i] = 1;",
    "comma whose value is the scalar": "b[i] = (s += a[i], s);",
    "ternary whose value is the update": "b[i] = a[i] > 0 ? (s += a[i]) : 0;",
    "passed by address": "s += a[i]; b[i] = sq(*(&s));",
    "read in a later statement": "s += a[i]; b[i] = s;",
    "plain assignment used as a value": "b[i] = (s = s + a[i]);",
    "min form used as a value": "b[i] = (s = fmax(s, a[i]));",
    "update in a chained assignment": "b[i] = h[0] = (s *= a[i]);",
}


@pytest.mark.parametrize("statement", HIDDEN_READS.values(), ids=HIDDEN_READS.keys())
def test_an_update_whose_value_is_used_is_not_a_reduction(statement: str) -> None:
    loop = first(
        f"""\
        double s = 0; int t = 0;
        for (int i = 0; i < n; i++) {{ {statement} }}
        return s + t;
        """
    )
    assert reduction_of(loop, "s") is None
    assert reduction_of(loop, "t") is None
    assert not loop.parallel


DISCARDED = {
    "statement": ("s += a[i];", RedOp.ADD),
    "left of a comma": ("b[i] = (s += a[i], 0.0);", RedOp.ADD),
    "cast to void": ("(void)(s *= a[i]);", RedOp.MUL),
    "both arms of a ternary statement": (
        "a[i] > 0 ? (s += a[i]) : (s += 1);",
        RedOp.ADD,
    ),
    "for-loop update of another variable": ("s++;", RedOp.ADD),
}


@pytest.mark.parametrize(("statement", "op"), DISCARDED.values(), ids=DISCARDED.keys())
def test_an_update_whose_value_is_discarded_stays_a_reduction(
    statement: str, op: RedOp
) -> None:
    loop = first(
        f"""\
        double s = 0;
        for (int i = 0; i < n; i++) {{ {statement} }}
        return s;
        """
    )
    assert reduction_of(loop, "s") is op
    assert loop.parallel


def test_a_histogram_update_whose_value_is_used_is_not_an_atomic() -> None:
    loop = first("for (int i = 0; i < n; i++) b[i] = h[k[i]]++;")
    assert not loop.parallel
    assert not loop.atomics


def test_a_histogram_update_as_a_statement_is_an_atomic() -> None:
    loop = first("for (int i = 0; i < n; i++) h[k[i]]++;")
    assert [r.name for r in loop.atomics] == ["h"]


def test_a_scalar_written_in_one_case_and_read_in_another_is_carried() -> None:
    loop = first(
        """\
        double x = 0;
        for (int i = 0; i < n; i++) {
          switch (k[i]) {
          case 0: x = a[i]; break;
          case 1: b[i] = x; break;
          }
        }
        return x;
        """
    )
    assert ("scalar-carried", "x") in codes(loop)


def test_a_scalar_written_before_the_switch_is_private() -> None:
    loop = first(
        """\
        double x;
        for (int i = 0; i < n; i++) {
          x = a[i];
          switch (k[i]) { case 0: b[i] = x; break; default: b[i] = -x; }
        }
        return 0;
        """
    )
    assert loop.parallel


def test_an_increment_of_a_value_written_earlier_in_the_iteration_is_private() -> None:
    loop = first(
        """\
        int t;
        for (int i = 0; i < n; i++) { t = k[i]; b[i] = a[t++]; b[i] += t; }
        return 0;
        """
    )
    assert loop.parallel
    assert {s.name: s.cls for s in loop.scalars}["t"] is ScalarClass.PRIVATE


# ----- induction variables -------------------------------------------------------


def test_two_increments_per_iteration_are_one_induction_of_step_two() -> None:
    loop = first(
        """\
        int t = 0;
        for (int i = 0; i < n; i++) { b[i] = a[t++]; h[i] = a[t++]; }
        return t;
        """
    )
    assert ("induction-variable", "t") in codes(loop)
    (found,) = loop.inductions
    assert (found.name, found.step) == ("t", 2)
    assert [u.offset for u in found.uses] == [0, 1]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("if (k[i]) t++; b[i] = a[t];", "only in some iterations"),
        ("if (k[i]) continue; t += 2; b[i] = a[t];", "only in some iterations"),
        ("for (int j = 0; j < k[i]; j++) t++; b[i] = a[t];", "inside an inner loop"),
    ],
)
def test_a_counter_that_advances_conditionally_is_refused_with_that_reason(
    body: str, why: str
) -> None:
    loop = first(f"int t = 0;\nfor (int i = 0; i < n; i++) {{ {body} }}\nreturn t;")
    (obstacle,) = [o for o in loop.obstacles if o.variable == "t"]
    assert obstacle.code == "conditional-induction"
    assert why in obstacle.message
    assert not loop.inductions


@pytest.mark.parametrize(
    "setup",
    [
        "char t = 0;",  # narrower than int: the closed form would not wrap alike
        "int t = 0; int *p = &t;",  # its address escapes
        "int t = 0; t += *k;",  # fine: a write outside the loop is not a use in it
    ],
)
def test_counters_without_a_faithful_closed_form(setup: str) -> None:
    loop = analyze_text(
        wrap(f"{setup}\nfor (int i = 0; i < n; i++) b[i] = a[t++];\nreturn t;")
    ).facts[0]
    if setup.endswith("*k;"):
        assert loop.inductions
    else:
        assert not loop.inductions
        assert ("scalar-carried", "t") in codes(loop)


def test_a_global_counter_is_not_an_induction() -> None:
    text = "int t;\n" + wrap("for (int i = 0; i < n; i++) b[i] = a[t++];\nreturn 0;")
    loop = analyze_text(text).facts[0]
    assert not loop.inductions
    assert not loop.parallel


# ----- the rewrite ---------------------------------------------------------------

UNPACK = """\
void unpack(int n, const double *restrict tmp, double *restrict re,
            double *restrict im, int *out) {
  int t = 0;
  for (int i = 0; i < n; i++) {
    re[i] = tmp[t++];
    im[i] = tmp[t++];
  }
  *out = t;
}
"""


def test_the_rewrite_uses_the_closed_form_and_sets_the_final_value() -> None:
    facts = analyze_text(UNPACK).facts[0]
    rewrite = rewrite_inductions(UNPACK, facts)
    assert rewrite is not None
    assert rewrite.names == ("t",)
    assert "re[i] = tmp[t + 2*i];" in rewrite.text
    assert "im[i] = tmp[t + 2*i + 1];" in rewrite.text
    assert "  }\n  if (0 < n) t += 2*n;\n  *out = t;" in rewrite.text


def test_after_the_rewrite_the_loop_gets_a_plain_parallel_pragma() -> None:
    facts = analyze_text(UNPACK).facts[0]
    found = parallel_after_rewrite(UNPACK, facts, OMP, AnalysisOptions(dialect="omp"))
    assert found is not None
    _, (top, *_) = found
    assert top.pragma is not None
    assert top.pragma.render() == "#pragma omp parallel for"


def test_a_statement_update_is_removed_and_reads_use_the_closed_form() -> None:
    text = wrap(
        """\
        int t = 3;
        for (int i = 1; i <= n; i += 2) {
          b[i] = a[t];
          t += 3;
        }
        return t;"""
    )
    facts = analyze_text(text).facts[0]
    rewrite = rewrite_inductions(text, facts)
    assert rewrite is not None
    assert "t += 3;\n" not in rewrite.text.split("for")[1].split("}")[0]
    assert "b[i] = a[t + 3*((i - 1) / 2)];" in rewrite.text
    assert "if (1 <= n) t += 3*((n + 1) / 2);" in rewrite.text


def test_a_read_inside_a_product_keeps_parentheses() -> None:
    text = wrap(
        """\
        int t = 0;
        for (int i = 0; i < 8; i++) { t++; b[i] = 2 * t * a[i]; }
        return t;"""
    )
    rewrite = rewrite_inductions(text, analyze_text(text).facts[0])
    assert rewrite is not None
    assert "b[i] = 2 * (t + i + 1) * a[i];" in rewrite.text
    assert "t += 8;" in rewrite.text  # a constant trip count needs no guard


def test_a_loop_that_is_not_a_statement_of_a_block_is_not_rewritten() -> None:
    text = wrap(
        """\
        int t = 0;
        if (n > 2)
          for (int i = 0; i < n; i++) b[i] = a[t++];
        return t;"""
    )
    assert rewrite_inductions(text, analyze_text(text).facts[0]) is None


def test_rewrite_all_rewrites_each_loop_that_becomes_parallel() -> None:
    text, done = rewrite_all(
        UNPACK + UNPACK.replace("unpack", "again"), AnalysisOptions()
    )
    assert [r.names for r in done] == [("t",), ("t",)]
    facts = analyze_text(text).facts
    assert [f.loop.var for f in facts] == ["i", "i"]
    assert all(f.parallel for f in facts)


def test_rewrite_all_leaves_loops_that_stay_serial() -> None:
    text = wrap(
        """\
        int t = 0;
        for (int i = 1; i < n; i++) { b[i] = b[i - 1] + a[t++]; }
        return t;"""
    )
    again, done = rewrite_all(text, AnalysisOptions())
    assert (again, done) == (text, ())
