"""A taskloop writing every element of an array, read by a loop dealt by thread."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file

_REGION = """\
    #include <omp.h>
    #define N 400
    double part[4];
    void f(void) {{
      double a[N];
    #pragma omp parallel num_threads(4)
      {{
    #pragma omp {filler}
    #pragma omp taskloop grainsize(50)
        for (int i = 0; i < {upper}; i++)
          {write};
        {between}
        int t = omp_get_thread_num();
        for (int i = t; i < N; i += omp_get_num_threads())
          part[t] += a[i];
      }}
    }}
"""


def _codes(
    filler: str = "master",
    upper: str = "N",
    write: str = "a[i] = i * 2.0",
    between: str = "",
) -> set[str]:
    src = _REGION.format(filler=filler, upper=upper, write=write, between=between)
    found = check_file(textwrap.dedent(src), "t.c")
    return {f.code for f in found if f.level.name == "ERROR" and f.span.line == 15}


def test_a_read_of_any_element_meets_a_write_of_every_element() -> None:
    assert _codes() == {"ACC120"}


def test_writes_of_part_of_the_array_or_under_a_branch_are_not_sure() -> None:
    assert _codes(upper="N / 2") == set()
    assert _codes(write="if (i % 2) a[i] = i * 2.0") == set()


def test_ordered_fills_are_not_races() -> None:
    assert _codes(filler="single") == set()  # its implied barrier
    assert _codes(between="#pragma omp barrier") == set()
