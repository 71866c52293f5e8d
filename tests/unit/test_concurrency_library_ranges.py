"""Sized library calls on threads' chunks: their element ranges compared as sections."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file

_CHUNKS = """\
#include <string.h>
#include <omp.h>
#define CH 256
int buf[4 * CH + 1], src[4 * CH + 1];
void f(int n) {
  #pragma omp parallel num_threads(4)
  {
    int tid = omp_get_thread_num();
    {call};
    {more}
  }
}
"""


def _codes(call: str, more: str = "") -> list[tuple[str, int]]:
    src = _CHUNKS.replace("{call}", call).replace("{more}", more)
    return [(f.code, f.span.line) for f in check_file(src, "t.c")]


@pytest.mark.parametrize(
    "call",
    [
        "memset(buf + tid * CH, 0, (CH + 1) * sizeof(int))",
        "memcpy(&buf[tid * CH], src, (CH + 1) * sizeof(int))",
    ],
)
def test_chunks_one_element_too_long_meet_the_next_thread(call: str) -> None:
    assert _codes(call) == [("ACC120", 9)]
    # and the next thread's own first element, written by hand
    assert ("ACC120", 10) in _codes(call, "buf[tid * CH] = tid;")


def test_a_copy_reading_the_next_chunk_meets_its_writer() -> None:
    call = "memcpy(buf + tid * CH, src + tid * CH, (CH + 1) * sizeof(int))"
    assert ("ACC120", 10) in _codes(call, "src[tid * CH + CH] = 1;")


@pytest.mark.parametrize(
    "call",
    [
        "memset(buf + tid * CH, 0, CH * sizeof(int))",
        "memset(&buf[tid * CH], 0, CH * sizeof buf[0])",
        "memcpy(buf + tid * CH, src, CH * sizeof(int))",  # every thread reads src
        "memset(buf + tid * n, 0, n * sizeof(int))",  # a count not read: not compared
    ],
)
def test_chunks_that_partition_do_not_race(call: str) -> None:
    assert _codes(call, "buf[tid * CH] = tid;") == []
