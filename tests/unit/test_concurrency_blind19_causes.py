"""Causes found by the nineteenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(code, line) for code, line, level in _found(src) if level == "ERROR"]


_CLAMP = """\
    #include <omp.h>
    void norm(double *part, const double *x, int n, int slots) {
      #pragma omp parallel
      {
        int tid = omp_get_thread_num();
        {clamp}
        #pragma omp for
        for (int i = 0; i < n; i++)
          part[tid] += x[i] * x[i];
      }
    }
"""


def test_a_thread_number_clamped_to_the_last_slot_is_shared() -> None:
    # threads past `slots - 1` all add into the last slot
    clamped = _CLAMP.replace("{clamp}", "if (tid >= slots) tid = slots - 1;")
    assert ("ACC101", 9) in _errors(clamped)


def test_a_thread_number_set_once_is_the_threads_own_slot() -> None:
    assert _errors(_CLAMP.replace("{clamp}", "")) == []


def test_two_regions_may_each_set_their_own_thread_number() -> None:
    two = """\
        #include <omp.h>
        void norms(double *p, double *q, const double *x, int n) {
          #pragma omp parallel
          {
            int tid = omp_get_thread_num();
            #pragma omp for
            for (int i = 0; i < n; i++)
              p[tid] += x[i];
          }
          #pragma omp parallel
          {
            int tid = omp_get_thread_num();
            #pragma omp for
            for (int i = 0; i < n; i++)
              q[tid] += x[i] * x[i];
          }
        }
    """
    assert _errors(two) == []

