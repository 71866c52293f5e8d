"""Blocks computed by hand from the thread number, their end clamped to the array."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file

_CHUNKS = """\
#include <omp.h>
#define N 1000
double a[N + 1];
void f(void) {
  #pragma omp parallel num_threads(4)
  {
    int nt = omp_get_num_threads();
    int tid = omp_get_thread_num();
    int chunk = (N + nt - 1) / nt;
    int lo = tid * chunk;
    int hi = {hi};
    {clamp}
    for (int i = lo; i {op} hi; i++)
      a[i] = a[i] + 2.0 * i;
  }
}
"""


def _found(hi: str, clamp: str, op: str) -> list[tuple[str, int]]:
    src = _CHUNKS.replace("{hi}", hi).replace("{clamp}", clamp).replace("{op}", op)
    return [(f.code, f.span.line) for f in check_file(src, "t.c")]


@pytest.mark.parametrize(
    ("hi", "clamp", "op"),
    [
        ("lo + chunk", "if (hi > N) hi = N;", "<="),  # inclusive end: one shared
        ("lo + chunk + 1", "if (hi > N) hi = N;", "<"),  # one past the chunk
        ("lo + chunk + 1", "if (N <= hi) { hi = N; }", "<"),
    ],
)
def test_clamped_chunks_that_overlap_race(hi: str, clamp: str, op: str) -> None:
    # the clamp only shrinks the last chunk: neighbours still share an element
    assert ("ACC120", 14) in _found(hi, clamp, op)


@pytest.mark.parametrize(
    "clamp", ["if (hi > N) hi = N;", "if (N < hi) { hi = N; }", "if (hi >= N) hi = N;"]
)
def test_clamped_chunks_that_partition_do_not_race(clamp: str) -> None:
    assert _found("lo + chunk", clamp, "<") == []


def test_a_clamp_to_another_value_is_no_proof() -> None:
    # `hi = N - 1` is not the compared bound: the value is not read, a doubt
    assert _found("lo + chunk", "if (hi > N) hi = N - 1;", "<") == [("ACC123", 14)]


def test_a_bound_moved_after_its_clamp_is_no_proof() -> None:
    assert _found("lo + chunk", "if (hi > N) hi = N; hi++;", "<") == [("ACC123", 14)]


_HELPER = """\
#include <omp.h>
#define N 1024
float x[N], y[N];
int g;
static void block_range(int tid, int nt, int n, int *lo, int *hi) {
  *lo = tid * n / nt;
  *hi = {hi};
  if (*hi > n)
    *hi = n;
}
void f(void) {
  #pragma omp parallel num_threads(4)
  {
    int lo, hi;
    {call}
    for (int i = lo; i < hi; i++)
      y[i] += 0.5f * x[i];
  }
}
"""
_CALL = "block_range(omp_get_thread_num(), omp_get_num_threads(), N, &lo, &hi);"


def _helper(hi: str, call: str = _CALL) -> list[tuple[str, int]]:
    src = _HELPER.replace("{hi}", hi).replace("{call}", call)
    return [(f.code, f.span.line) for f in check_file(src, "t.c")]


def test_blocks_a_helper_hands_back_through_pointers_overlap() -> None:
    assert _helper("(tid + 1) * n / nt + 1") == [("ACC120", 17)]
    named = "int t = omp_get_thread_num();\n    " + _CALL.replace(
        "omp_get_thread_num()", "t"
    )
    assert _helper("(tid + 1) * n / nt + 1", named) == [("ACC120", 18)]


def test_blocks_a_helper_hands_back_that_partition_do_not_race() -> None:
    assert _helper("(tid + 1) * n / nt") == []
    assert _helper("*lo + 1") == []  # one element each, read through `*lo`


@pytest.mark.parametrize(
    ("hi", "call"),
    [
        ("(tid + 1) * n / nt + g", _CALL),  # a global's value: not the caller's
        ("(tid + 1) * n / nt + 1", "if (N > 4) " + _CALL),  # maybe not called
    ],
)
def test_a_helper_not_read_is_no_proof(hi: str, call: str) -> None:
    assert ("ACC120", 17) not in _helper(hi, call)
