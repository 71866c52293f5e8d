"""Causes of the eighth blind batch's false alarms and misses, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_RECORDS = """\
    #define N 100
    DECL
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < N; i++)
        r[i].WRITTEN = r[i].val + r[i + 1].val;
    }
"""


def _records(decl: str, written: str) -> str:
    return _RECORDS.replace("DECL", decl).replace("WRITTEN", written)


def test_another_field_of_the_next_element_is_no_dependence() -> None:
    src = _records("struct rec { double val; double sum; } r[N + 1];", "sum")
    assert _errors(src) == []


def test_the_same_field_of_the_next_element_still_races() -> None:
    src = _records("struct rec { double val; double sum; } r[N + 1];", "val")
    assert _errors(src) == [("ACC101", 6)]


def test_union_fields_share_storage() -> None:
    src = _records("union rec { double val; double sum; } r[N + 1];", "sum")
    assert _errors(src) == [("ACC101", 6)]


def test_a_struct_holding_an_anonymous_union_keeps_fields_together() -> None:
    decl = "struct rec { union { double val; double sum; }; } r[N + 1];"
    assert _errors(_records(decl, "sum")) == [("ACC101", 6)]


def test_a_whole_element_store_meets_every_field() -> None:
    src = """\
        struct rec { double val; double sum; } r[101];
        void f(void) {
          #pragma omp parallel for
          for (int i = 0; i < 100; i++) {
            r[i].sum = r[i].val;
            r[i + 1] = r[0];
          }
        }
    """
    assert ("ACC101", 5) in _errors(src)


_SCRATCH = """\
    #include <omp.h>
    #include <stdlib.h>
    struct scratch { int n; MEMBER; };
    void f(struct scratch s) {
      #pragma omp parallel num_threads(4) CLAUSE
      {
        int t = omp_get_thread_num();
        SETUP
        for (int k = 0; k < s.n; k++)
          s.v[INDEX] = t + k;
      }
    }
"""


def _scratch(member: str, clause: str, index: str = "k", setup: str = "") -> str:
    return (
        _SCRATCH.replace("MEMBER", member)
        .replace("CLAUSE", clause)
        .replace("INDEX", index)
        .replace("SETUP", setup)
    )


def test_a_copied_structure_still_points_to_one_buffer() -> None:
    src = _scratch("double *v", "firstprivate(s)")
    assert _errors(src) == [("ACC120", 10)]


def test_a_shared_structure_pointer_member_is_one_buffer() -> None:
    assert _errors(_scratch("double *v", "shared(s)")) == [("ACC120", 10)]


def test_a_copied_structure_holds_its_own_array_member() -> None:
    assert _errors(_scratch("double v[8]", "firstprivate(s)")) == []


def test_each_thread_its_own_element_through_a_member() -> None:
    src = _scratch("double *v", "firstprivate(s)", "t * 8 + k")
    src = src.replace("k < s.n", "k < 8")
    assert _errors(src) == []


def test_a_member_pointer_each_thread_sets_is_its_own() -> None:
    setup = "s.v = malloc(8 * sizeof(double));"
    assert _errors(_scratch("double *v", "firstprivate(s)", setup=setup)) == []


_HISTOGRAM = """\
    #define N 1000
    #define B 16
    int key[N], hist[4 * N];
    void f(void) {
      for (int i = 0; i < N; i++)
        key[i] = STORED;
      #pragma omp parallel for
      for (int i = 0; i < N; i++)
        hist[key[i]]++;
    }
"""


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def test_an_index_array_stored_with_a_macro_modulus_repeats() -> None:
    src = _HISTOGRAM.replace("STORED", "(i * 7) % B")
    assert _errors(src) == [("ACC101", 9)]


def test_an_index_array_stored_with_a_macro_stride_is_distinct() -> None:
    assert _found(_HISTOGRAM.replace("STORED", "i * (B / 4)")) == []


_SPAWN = """\
    int a[64];
    void f(void) {
      int i;
      #pragma omp parallel
      #pragma omp single
      for (i = 0; i < 64; i++) {
        #pragma omp task CLAUSE
        a[i] = 1;
        WAIT
      }
    }
"""


def _spawn(clause: str, wait: str = "") -> str:
    return _SPAWN.replace("CLAUSE", clause).replace("WAIT", wait)


def test_a_shared_index_the_creating_loop_advances_races() -> None:
    assert ("ACC122", 8) in _errors(_spawn("shared(i)"))


def test_a_copied_index_is_each_task_own() -> None:
    assert _errors(_spawn("firstprivate(i)")) == []


def test_an_index_shared_in_the_team_stays_shared_in_the_task() -> None:
    # `i` is declared outside the region: shared by the team, so by the task too.
    assert ("ACC122", 8) in _errors(_spawn(""))


def test_a_taskwait_closing_each_turn_orders_the_next_increment() -> None:
    assert _errors(_spawn("shared(i)", "#pragma omp taskwait")) == []


_COPIES = """\
    #include <string.h>
    #define N 32
    #define W 4
    double src[2 * W], dst[N * 2 * W + W];
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < N; i++)
        memcpy(&dst[i * STRIDE], src, 2 * W * sizeof(double));
    }
"""


def test_a_byte_count_of_three_factors_sizes_the_copy() -> None:
    assert _errors(_COPIES.replace("STRIDE", "W")) == [("ACC101", 8)]


def test_copies_into_blocks_as_long_as_the_count_are_apart() -> None:
    assert _found(_COPIES.replace("STRIDE", "2 * W")) == []
