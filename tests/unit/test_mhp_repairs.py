"""Quick fixes of the newer race codes: apply each, check again, no finding left."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.analysis.findings import Severity


def _apply(src: str, code: str) -> tuple[str, set[str]]:
    """The repair the `code` finding offers, and the error codes left once applied."""
    text = textwrap.dedent(src)
    fixes = [f.insert for f in check_file(text, "t.c") if f.code == code and f.insert]
    assert fixes, "no repair offered"
    at, inserted = fixes[0]
    data = text.encode()
    fixed = (data[:at] + inserted.encode() + data[at:]).decode()
    left = {f.code for f in check_file(fixed, "t.c") if f.level is Severity.ERROR}
    return inserted, left


def _offers(src: str, code: str) -> bool:
    found = check_file(textwrap.dedent(src), "t.c")
    assert any(f.code == code for f in found)
    return any(f.code == code and f.insert for f in found)


CALLEE_IN_LOOP = """
int hits = 0;
void bump(int v) { hits = hits + v; }
void f(int n, const int *a) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++)
    bump(a[i]);
}
"""


def test_critical_around_a_call_in_a_loop() -> None:
    inserted, left = _apply(CALLEE_IN_LOOP, "ACC124")
    assert inserted == "    #pragma omp critical\n"
    assert left == set()


def test_critical_around_a_call_in_a_region() -> None:
    src = """
    int ticket(void) {
      static int next = 0;
      return next++;
    }
    void f(void) {
      #pragma omp parallel
      {
        ticket();
      }
    }
    """
    inserted, left = _apply(src, "ACC124")
    assert inserted == "    #pragma omp critical\n"
    assert left == set()


def test_no_critical_for_a_call_inside_an_expression() -> None:
    src = """
    int ticket(void) {
      static int next = 0;
      return next++;
    }
    int got[64];
    void f(int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++)
        got[i] = ticket();
    }
    """
    assert not _offers(src, "ACC124")


def test_no_critical_across_teams() -> None:
    src = CALLEE_IN_LOOP.replace("parallel for", "target teams distribute parallel for")
    assert not _offers(src, "ACC124")


def test_unnamed_critical_takes_the_other_name() -> None:
    src = """
    int f(void) {
      int x = 0;
      #pragma omp parallel
      {
        #pragma omp critical
        x = x + 1;
        #pragma omp critical(tally)
        x = x + 2;
      }
      return x;
    }
    """
    inserted, left = _apply(src, "ACC121")
    assert inserted == "(tally)"
    assert left == set()


def test_no_barrier_inside_sections() -> None:
    src = """
    int f(void) {
      int x = 0;
      #pragma omp parallel sections
      {
        #pragma omp section
        x = 1;
        #pragma omp section
        x = 2;
      }
      return x;
    }
    """
    assert not _offers(src, "ACC120")
