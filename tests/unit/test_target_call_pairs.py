"""ACC122 for two helpers' target tasks, the first `nowait`, whose maps meet."""

from __future__ import annotations

import textwrap

import pytest
from accls.analysis.checks import check_file
from accls.analysis.depend_sections import sections_meet

_SRC = """\
    typedef struct { double *u; int n; } field_t;
    static void low(double *u, int h) {
      #pragma omp target teams distribute parallel for map(tofrom: u[0:{len}]) nowait
      for (int i = 0; i < {len}; i++)
        u[i] = 2.0 * u[i];
      {wait_in}
    }
    static void high(double *u, int h, int n) {
      #pragma omp target teams distribute parallel for map(tofrom: u[h:n - h]) nowait
      for (int i = h; i < n; i++)
        u[i] = 0.5 * u[i];
    }
    void advance(field_t *f) {
      int h = f->n / 2;
      low(f->u, h);
      {wait_between}
      high(f->u, h, f->n);
      #pragma omp taskwait
    }
"""


def _errors(length: str, wait_in: str = "", wait_between: str = "") -> set[str]:
    src = textwrap.dedent(_SRC).replace("{len}", length)
    src = src.replace("{wait_in}", wait_in).replace("{wait_between}", wait_between)
    return {f.code for f in check_file(src, "t.c") if f.level.name == "ERROR"}


def test_sections_meeting_at_one_element_race() -> None:
    assert _errors("h + 1") == {"ACC122"}


@pytest.mark.parametrize(
    ("length", "wait_in", "wait_between"),
    [
        ("h", "", ""),  # `u[0:h]` and `u[h:n-h]`: apart
        ("h + 1", "", "#pragma omp taskwait"),
        ("h + 1", "#pragma omp taskwait", ""),
    ],
)
def test_apart_or_waited_for_is_clean(
    length: str, wait_in: str, wait_between: str
) -> None:
    assert _errors(length, wait_in, wait_between) == set()


@pytest.mark.parametrize(
    ("one", "two", "meet"),
    [
        ("u[0:h+1]", "u[h:n-h]", True),  # `u[h]`, lows and lengths non-negative
        ("u[0:h]", "u[h:n-h]", False),
        ("u[2:3]", "u[4:5]", True),
        ("u[0:n]", "u[3:2]", False),  # meets only when `n > 3`
        ("u[i:1]", "u[j:1]", False),
    ],
)
def test_sections_meet(one: str, two: str, meet: bool) -> None:
    assert sections_meet(one, two) is meet


@pytest.mark.parametrize(("arms", "codes"), [("else\n   ", set()), ("", {"ACC122"})])
def test_calls_in_the_two_arms_of_one_if_never_meet(arms: str, codes: set[str]) -> None:
    src = textwrap.dedent(_SRC).replace("{len}", "h + 1").replace("{wait_in}", "")
    calls = "  low(f->u, h);\n  {wait_between}\n  high(f->u, h, f->n);"
    branched = f"  if (h > 4)\n    low(f->u, h);\n  {arms} high(f->u, h, f->n);"
    src = src.replace(calls, branched)
    assert {f.code for f in check_file(src, "t.c") if f.level.name == "ERROR"} == codes
