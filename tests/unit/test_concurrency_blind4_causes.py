"""Causes found by the fourth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.analysis.findings import Severity


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level is Severity.ERROR]


_SIMD_SUM = """\
    float total(const float *a, int n) {
      float s = 0;
      #pragma omp {words}
      for (int i = 0; i < n; i++) s += a[i];
      return s;
    }
"""


def test_simd_lanes_share_a_function_local_accumulator() -> None:
    # The lanes of one thread share `s`: without a reduction they race.
    assert ("ACC104", 4) in _errors(_SIMD_SUM.replace("{words}", "simd"))
    assert ("ACC104", 4) in _errors(_SIMD_SUM.replace("{words}", "for simd"))


def test_simd_with_a_reduction_is_clean() -> None:
    assert _errors(_SIMD_SUM.replace("{words}", "simd reduction(+:s)")) == []


def test_orphaned_for_keeps_function_locals_per_thread() -> None:
    # Each thread that calls `total` has its own `s`: no race (a partial sum).
    assert _errors(_SIMD_SUM.replace("{words}", "for")) == []


_LAST = """\
    #include <omp.h>
    int main(void) {
      int t = 0, a[100], y[64];
      #pragma omp parallel num_threads(4)
      {
        #pragma omp for lastprivate(t){nowait}
        for (int i = 0; i < 100; i++) { t = i; a[i] = t; }
        y[omp_get_thread_num()] = t;
      }
      return y[0] + a[0];
    }
"""


def test_lastprivate_write_back_races_with_a_read_past_nowait() -> None:
    # The last iteration's thread writes `t` back as the loop ends; `nowait`
    # lets the other threads read `t` at once.
    assert ("ACC120", 8) in _errors(_LAST.replace("{nowait}", " nowait"))


def test_lastprivate_write_back_is_ordered_by_the_loop_barrier() -> None:
    assert _errors(_LAST.replace("{nowait}", "")) == []
