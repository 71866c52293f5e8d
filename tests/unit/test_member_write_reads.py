"""ACC103 on a shared structure member names the member's read besides its write."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file

_ARGMAX = """\
    struct best { double v; int at; };
    double x[600];
    void f(void) {
      struct best b = {-1.0, -1};
    #pragma omp parallel for
      for (int i = 0; i < 600; i++)
        if (x[i] > b.v) {
          b.v = x[i];
          b.at = i;
        }
    }
"""


def _member_findings(src: str) -> dict[str, dict[str, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return {dict(f.args)["var"]: dict(f.args) for f in found if f.code == "ACC103"}


def test_the_unguarded_read_of_a_written_member_is_named() -> None:
    found = _member_findings(_ARGMAX)
    assert found["b.v"]["write"] == "8"
    assert found["b.v"]["read"] == "7"  # the `if` another thread's write races with
    assert "read" not in found["b.at"]  # only written


def test_members_updated_in_a_critical_are_not_flagged() -> None:
    src = """\
    struct best { double v; int at; };
    double x[600];
    void f(void) {
      struct best b = {-1.0, -1};
    #pragma omp parallel for
      for (int i = 0; i < 600; i++) {
    #pragma omp critical
        if (x[i] > b.v) {
          b.v = x[i];
          b.at = i;
        }
      }
    }
    """
    assert _member_findings(src) == {}
