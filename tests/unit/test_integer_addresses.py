"""Integers turned into pointers: `(double *)addr` reaches the caller's memory."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze_text
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.summaries import summarize
from accls.frontend import parse_source

CALLEES = """\
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
long gaddr;
double via_local(intptr_t addr, int i) {
  double *p = (double *)addr;
  return p[i];
}
double via_expression(size_t addr, int i) { return *((double *)addr + i); }
double via_assignment(long addr, int i) {
  double *p = addr;
  return p[i];
}
double sized(intptr_t addr, int n) {
  double *t = (double *)malloc(n * sizeof(double));
  t[0] = ((double *)addr)[n];
  unsigned char *b = (unsigned char *)&n;
  t[0] += b[0];
  double v = t[0];
  free(t);
  return v;
}
double via_global(int i) {
  double *p = (double *)gaddr;
  return p[i];
}
double via_pointer_set_twice(long addr, long n, int i) {
  long *p = &n;
  double s = *p;
  p = addr;
  return s + p[i];
}
double via_integer_local(intptr_t addr, int i) {
  long t = addr + 8;
  return ((double *)t)[i];
}
"""


@pytest.mark.parametrize("name", ["via_local", "via_expression", "via_assignment"])
def test_an_integer_cast_to_a_pointer_is_read_through(name: str) -> None:
    summary = summarize(name, parse_source(CALLEES), PURE_FUNCTIONS)
    assert summary is not None
    assert (set(summary.writes), set(summary.reads)) == (set(), {0})


def test_the_address_of_one_source_does_not_hide_the_others() -> None:
    """`p = &n` takes the address of `n`; `p = addr` still uses the value of `addr`."""
    summary = summarize("via_pointer_set_twice", parse_source(CALLEES), PURE_FUNCTIONS)
    assert summary is not None
    assert set(summary.reads) == {0}


@pytest.mark.parametrize("name", ["via_global", "via_integer_local"])
def test_an_address_held_by_no_parameter_has_no_summary(name: str) -> None:
    assert summarize(name, parse_source(CALLEES), PURE_FUNCTIONS) is None


def _call_reasons(body: str) -> list[str]:
    text = CALLEES + dedent(
        f"""\
        void run(int n, double *restrict a) {{
          for (int i = 1; i < n; i++) {{
            {body}
          }}
        }}
        """
    )
    found = [f for f in analyze_text(text).facts if f.loop.function == "run"]
    return [o.message for o in found[0].obstacles if o.code == "call"]


@pytest.mark.parametrize(
    "body",
    [
        "a[i] = via_local((intptr_t)a, i - 1);",
        "a[i] = via_expression((size_t)&a[0], i - 1);",
        "a[i] = via_assignment((long)a, i - 1);",
    ],
)
def test_a_loop_passing_its_array_as_an_integer_is_refused(body: str) -> None:
    reasons = _call_reasons(body)
    assert reasons
    assert "`a`" in reasons[0]


def test_a_callee_reading_an_integer_global_as_an_address_says_why() -> None:
    reasons = _call_reasons("a[i] = via_global(i - 1);")
    assert reasons
    assert "turns the integer `gaddr` into a pointer" in reasons[0]


def test_a_long_parenthesised_name_is_read_in_linear_time() -> None:
    # The cast pattern once split a name into words every possible way: a
    # parenthesised 48-letter name (miniAMR's `(MPI_...)` calls) took hours.
    name = "communicator_of_the_whole_application_of_blocks"
    text = dedent(
        f"""\
        double pick(long addr, int {name}) {{
          int k = ({name});
          double *p = (double *)addr;
          return p[k];
        }}
        """
    )
    source = parse_source(text, "long_name.c")
    found = summarize("pick", source, PURE_FUNCTIONS)
    assert found is not None
    assert found.reads
