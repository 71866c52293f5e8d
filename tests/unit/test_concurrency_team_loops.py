"""Loops over the team size: dealt by the call itself, or run whole by every thread."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file

_DEALT = """\
#include <omp.h>
#define N 64
double a[N], b[N];
void f(void) {
  #pragma omp parallel num_threads(4)
  {
    int t = omp_get_thread_num();
    for (int i = t; i < N; i += omp_get_num_threads())
      a[{sub}] = 2.0 * i;
    #pragma omp barrier
    #pragma omp for
    for (int i = 0; i < N; i++)
      b[i] = a[i];
  }
}
"""


def _codes(src: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.line) for f in check_file(src, "t.c")]


def test_a_loop_dealt_by_the_team_size_call_meets_where_subscripts_repeat() -> None:
    # threads 0 and 1 both reach `a[0]`; the `omp for` shares the name `i`
    assert ("ACC120", 9) in _codes(_DEALT.replace("{sub}", "i / 2"))


def test_a_loop_dealt_by_the_team_size_call_splits_its_elements() -> None:
    assert _codes(_DEALT.replace("{sub}", "i")) == []


_TEAM = """\
#include <omp.h>
#define T 4
long slot[T], sum[T];
void f(void) {
  #pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num();
    int nt = omp_get_num_threads();
    slot[t] = t * 3;
    {sync}
    for (int u = 0; u < {bound}; u++)
      sum[t] += slot[{sub}];
  }
}
"""


@pytest.mark.parametrize("bound", ["nt", "omp_get_num_threads()"])
def test_every_thread_reading_every_slot_meets_the_slots_writers(bound: str) -> None:
    src = _TEAM.replace("{sync}", "").replace("{bound}", bound)
    assert _codes(src.replace("{sub}", "u")) == [("ACC120", 12)]


@pytest.mark.parametrize(
    ("sync", "sub"),
    [("#pragma omp barrier", "u"), ("", "t")],  # ordered, or its own slot only
)
def test_slots_read_after_a_barrier_or_own_do_not_race(sync: str, sub: str) -> None:
    src = _TEAM.replace("{sync}", sync).replace("{bound}", "nt")
    assert _codes(src.replace("{sub}", sub)) == []


def test_a_team_loop_not_from_zero_still_doubts_who_runs_it() -> None:
    # `u = 1; u < nt`: a team of one runs no value of it
    src = _TEAM.replace("{sync}", "").replace("{bound}", "nt").replace("u = 0", "u = 1")
    assert [c for c, _ in _codes(src.replace("{sub}", "u"))] == ["ACC123"]


_MOVED = """\
#include <omp.h>
double a[64];
void f(void) {
  #pragma omp parallel num_threads(4)
  {
    {first}
    for (int i = 0; i < 2; i++)
      a[i] = 0;
  }
}
"""


def test_a_loop_variable_started_at_the_thread_number_is_no_thread_number() -> None:
    # `i = omp_get_thread_num()` heads a dealing loop; the next loop's `i` is not
    # the thread's number: every thread writes a[0] and a[1]
    first = "for (int i = omp_get_thread_num(); i < 64; i += 4) a[i] += 1.0;"
    assert ("ACC120", 8) in _codes(_MOVED.replace("{first}", first))


@pytest.mark.parametrize("move", ["tid = tid / 2;", "tid++;"])
def test_a_thread_number_moved_after_it_is_read_is_no_slot(move: str) -> None:
    # `tid / 2` is one value for threads 0 and 1: no longer each thread's own slot
    src = _MOVED.replace("{first}", f"int tid = omp_get_thread_num(); {move}")
    src = src.replace("for (int i = 0; i < 2; i++)\n      a[i] = 0;", "a[tid] = 1.0;")
    assert _codes(src) != []
