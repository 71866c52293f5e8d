"""The second access ACC124 names: a read through the pointer a writer returns."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file

_SRC = """\
    static const double *rates(const double *y, double *out) {
      {keep}
      r[0] = 2.0 * y[0];
      r[1] = 0.5 * y[1];
      return r;
    }
    static void rhs(const double *y, double *dy, double *out) {
      const double *rate = rates(y, out);
      dy[0] = rate[1] - rate[0];
      dy[1] = rate[0];
    }
    void run(double (*y)[2], double (*dy)[2], double (*out)[2], int n) {
      #pragma omp parallel for
      for (int s = 0; s < n; s++) rhs(y[s], dy[s], out[s]);
    }
"""


def _errors(keep: str) -> list[tuple[str, dict[str, str]]]:
    text = textwrap.dedent(_SRC).replace("{keep}", keep)
    found = check_file(text, "t.c")
    return [(f.code, dict(f.args)) for f in found if f.level.name == "ERROR"]


def test_the_read_through_the_returned_static_buffer_is_the_pair() -> None:
    found = _errors("static double r[2];")
    assert [code for code, _ in found] == ["ACC124"]
    args = found[0][1]
    # the write of `r[0]` (line 3) races with the caller's read of `rate[0]`
    assert (args["write"], args["other"]) == ("3", "9")


def test_the_callers_own_buffer_is_no_race() -> None:
    assert _errors("double *r = out;") == []
