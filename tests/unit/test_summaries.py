"""Function summaries: calls whose writes stay in the iteration, and the others."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze_text
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.summaries import summarize
from accls.frontend import parse_source

HELPERS = """\
double next_random(unsigned long *seed) {
  *seed = *seed * 6364136223846793005UL + 1;
  return (double)(*seed >> 11);
}
int pick(unsigned long *seed) { return (int)next_random(seed) % 7; }
void fill(double x, double *c) { for (int k = 0; k < 5; k++) c[k] = x * k; }
double peek(const double *src, int i) { return src[i + 1]; }
double g;
double read_g(int i) { return g * i; }
void set_g(double v) { g = v; }
int counter(void) { static int calls; return ++calls; }
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
void alias(double *p, double *q) { double *r = q; r[0] = p[0]; }
void repoint(double *p) { p = &g; *p = 1.0; }
"""


def facts(loop_body: str, setup: str = "") -> list[set[str]]:
    text = HELPERS + dedent(
        f"""\
        void run(int n, double *restrict a, double *restrict b) {{
          {setup}
          for (int i = 0; i < n - 1; i++) {{
            {loop_body}
          }}
        }}
        """
    )
    found = analyze_text(text).facts
    return [{o.code for o in f.obstacles} for f in found if f.loop.function == "run"]


def test_a_helper_writing_only_through_a_pointer_has_a_summary() -> None:
    source = parse_source(HELPERS)
    summary = summarize("pick", source, PURE_FUNCTIONS)
    assert summary is not None
    assert (set(summary.writes), set(summary.reads)) == ({0}, {0})


@pytest.mark.parametrize(
    "name", ["set_g", "counter", "fact", "alias", "repoint", "printf_user"]
)
def test_functions_with_other_effects_have_no_summary(name: str) -> None:
    source = parse_source(HELPERS + 'void printf_user(void) { printf("x"); }\n')
    assert summarize(name, source, PURE_FUNCTIONS) is None


@pytest.mark.parametrize(
    "body",
    [
        "unsigned long seed = i; b[i] = next_random(&seed);",
        "unsigned long seed = i; b[i] = pick(&seed) + next_random(&seed);",
        "double c[5]; fill(a[i], c); b[i] = c[2];",
        "b[i] = peek(a, i);",  # reads a, which the loop does not write
        "b[i] = read_g(i);",
    ],
)
def test_calls_that_write_only_iteration_locals_are_parallel(body: str) -> None:
    assert facts(body)[0] == set()


@pytest.mark.parametrize(
    ("body", "setup"),
    [
        ("b[i] = next_random(&seed);", "unsigned long seed = 1;"),  # shared seed
        ("fill(a[i], b);", ""),  # writes a shared array
        ("a[i] = peek(a, i);", ""),  # reads what the loop writes
        ("b[i] = read_g(i); g = b[i];", ""),  # the loop writes the global it reads
        ("double *p = b; fill(a[i], p);", ""),  # a local pointer into shared memory
        ("b[i] = counter();", ""),
        ("b[i] = fact(i);", ""),
    ],
)
def test_calls_whose_effects_leave_the_iteration_stay_refused(
    body: str, setup: str
) -> None:
    assert "call" in facts(body, setup)[0]


def test_an_address_into_a_parameter_passed_on_is_a_read_of_that_parameter() -> None:
    source = parse_source(
        HELPERS
        + dedent(
            """\
            int search(const double *g, int lo, int hi) { return g[lo] > 0 ? lo : hi; }
            double interp(const double *grid, int n, int k, double *out) {
              const double *low = &grid[k * n];
              out[0] = low[0] + low[1];
              return (double)search(&grid[k * n], 0, n - 1);
            }
            """
        )
    )
    summary = summarize("interp", source, PURE_FUNCTIONS)
    assert summary is not None
    # Reading through the local pointer `low` counts as reading every pointer.
    assert (set(summary.writes), set(summary.reads)) == ({3}, {0, 3})


def test_a_read_argument_may_index_with_the_loop_variable() -> None:
    assert facts("b[i] = peek(&a[i], 0);")[0] == set()
    assert "call" in facts("a[i] = peek(&a[i], 0);")[0]


def test_a_callee_writing_a_shared_object_at_an_index_argument_says_why() -> None:
    text = dedent(
        """\
        typedef struct { double *r; int *n; } Atoms;
        static void sort_cell(Atoms *a, int box) {
          for (int k = 0; k < a->n[box]; k++) a->r[box * 64 + k] = 0.0;
        }
        void redistribute(Atoms *a, int nb) {
          for (int ii = 0; ii < nb; ++ii)
            sort_cell(a, ii);
        }
        """
    )
    (facts,) = [f for f in analyze_text(text).facts if f.loop.var == "ii"]
    assert not facts.parallel
    message = facts.obstacles[0].message
    assert "which writes through `a`, shared by the iterations: `ii` may" in message
    assert "the summary keeps no index ranges" in message
