"""A loop every thread runs over symbolic bounds, against a read of one element."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file

_REGION = """\
    #include <omp.h>
    double *v;
    double out[64];
    void f(int n, int m) {{
    #pragma omp parallel
      {{
        int t = omp_get_thread_num();
        for (int k = 0; k < n; k++)
          v[{write}] = t + k;
        out[t] = v[{read}];
      }}
    }}
"""


def _read_errors(write: str, read: str) -> list[str]:
    src = textwrap.dedent(_REGION.format(write=write, read=read))
    found = check_file(src, "t.c")
    return [f.code for f in found if f.level.name == "ERROR" and f.span.line == 10]


def test_the_last_element_a_loop_writes_is_met_whenever_it_runs() -> None:
    # k < n: for every n the loop runs for, iteration n - 1 writes v[n - 1].
    assert _read_errors("k", "n - 1") == ["ACC120"]
    assert _read_errors("k + 1", "n") == ["ACC120"]


def test_elements_past_the_range_or_unknown_are_not_sure_races() -> None:
    assert _read_errors("k", "n") == []  # one past the last
    assert _read_errors("k + n", "n - 1") == []  # the loop writes [n, 2n)
    assert _read_errors("k", "m") == []  # m may lie outside [0, n): a doubt
