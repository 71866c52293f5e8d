"""Causes found by the seventh blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.message) for f in found if f.level.name == "ERROR"]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(code, line) for code, line, _ in _found(src)]


_MODULO = """\
    #define B 8
    #define N {n}
    int hist[B], data[N];
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < N; i++)
        {update};
    }
"""


def test_a_remainder_subscript_meets_one_element_by_pigeonhole() -> None:
    # `% 8` takes at most 15 values: 16 iterations or more meet one bin twice.
    src = _MODULO.replace("{n}", "256")
    assert ("ACC101", 7) in _errors(src.replace("{update}", "hist[data[i] % B]++"))
    assert ("ACC101", 7) in _errors(src.replace("{update}", "hist[i % B] += 2"))


def test_a_remainder_subscript_of_few_iterations_may_not_meet() -> None:
    # 15 iterations into 16 bins: the remainders (-7 to 7) may all differ; with
    # `hist[B]` itself 15 in-bounds updates of 8 elements meet (races_pigeonhole)
    src = _MODULO.replace("{n}", "15").replace("{update}", "hist[data[i] % B]++")
    src = src.replace("int hist[B]", "int hist[16]")
    assert _errors(src) == []


def test_a_remainder_subscript_under_a_branch_or_atomic_is_not_sure() -> None:
    src = _MODULO.replace("{n}", "256")
    branch = src.replace("{update}", "if (data[i] > 3) hist[data[i] % B]++")
    assert _errors(branch) == []
    atomic = src.replace(
        "        {update};",
        "        {\n        #pragma omp atomic\n"
        "        hist[data[i] % B]++;\n        }",
    )
    assert _errors(atomic) == []


def test_a_macro_modulus_in_a_plain_store_is_evaluated() -> None:
    src = """\
        #define M 4
        int a[64];
        void f(void) {
          #pragma omp parallel for
          for (int i = 0; i < 64; i++)
            a[i % M] = i;
        }
    """
    assert ("ACC101", 6) in _errors(src)


_CALLEE_CRITICAL = """\
    double total;
    static void bonus(double v) {
      #pragma omp critical{callee}
      total += v;
    }
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < 100; i++) {
        #pragma omp critical{loop}
        total += i;
        bonus(i);
      }
    }
"""


def test_a_callee_critical_name_against_the_loop_unnamed_critical() -> None:
    src = _CALLEE_CRITICAL.replace("{callee}", "(b)").replace("{loop}", "")
    found = _found(src)
    assert [(c, line) for c, line, _ in found] == [("ACC121", 10)]
    assert "line 4" in found[0][2]
    assert "`critical(b)`" in found[0][2]


def test_a_callee_with_the_loop_critical_name_is_excluded() -> None:
    same = _CALLEE_CRITICAL.replace("{callee}", "(b)").replace("{loop}", "(b)")
    assert _errors(same) == []
    unnamed = _CALLEE_CRITICAL.replace("{callee}", "").replace("{loop}", "")
    assert _errors(unnamed) == []


_ACCOUNTS = """\
    #include <omp.h>
    #define A 4
    struct account { omp_lock_t lock; long balance; };
    struct account acct[A];
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < 64; i++) {
        int from = i % A, to = (i + 1) % A;
        omp_set_lock(&acct[from].lock);
        acct[from].balance -= 5;
        acct[{credit}].balance += 5;
        omp_unset_lock(&acct[from].lock);
      }
    }
"""


def test_a_lock_field_of_another_element_does_not_guard_the_data() -> None:
    # the debit of account 1 holds its own lock; the credit of account 1 holds 0's
    assert ("ACC121", 10) in _errors(_ACCOUNTS.replace("{credit}", "to"))


def test_a_lock_field_of_the_same_element_guards_it() -> None:
    assert _errors(_ACCOUNTS.replace("{credit}", "from")) == []


_LAZY = """\
    #include <stdlib.h>
    static double lookup(int k) {
      static double *table = NULL;
      if (table == NULL) {
        double *t = malloc(16 * sizeof *t);
        table = t;
      }
      return table[k % 16];
    }
    double out[64];
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < 64; i++)
        out[i] = lookup(i);
    }
"""


def test_a_static_local_race_names_its_write_and_another_access() -> None:
    # not the initializer (line 3), which runs once, and the write is a write
    found = _found(_LAZY)
    assert [(c, line) for c, line, _ in found] == [("ACC124", 14)]
    assert "(line 6) and read at line 4" in found[0][2]


_BLOCKS = """\
    #include <omp.h>
    #define N 64
    double old[N + 2], next[N + 2];
    void f(void) {
      #pragma omp parallel num_threads(4)
      {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int lo = 1 + t * N / nt, hi = {hi};
        for (int i = lo; i < hi; i++)
          next[i] = 0.5 * (old[i - 1] + old[i + 1]);
        {sync}
        for (int i = lo; i < hi; i++)
          old[i] = next[i];
      }
    }
"""


def test_blocks_of_the_thread_number_meet_at_their_edges() -> None:
    # thread 1 reads old[16], the last element of thread 0's block
    src = _BLOCKS.replace("{hi}", "1 + (t + 1) * N / nt").replace("{sync}", "")
    assert ("ACC120", 13) in _errors(src)


def test_blocks_of_the_thread_number_apart_across_a_barrier() -> None:
    src = _BLOCKS.replace("{hi}", "1 + (t + 1) * N / nt")
    assert _errors(src.replace("{sync}", "#pragma omp barrier")) == []


def test_blocks_that_overlap_meet() -> None:
    src = _BLOCKS.replace("{hi}", "2 + (t + 1) * N / nt")
    found = _errors(src.replace("{sync}", "#pragma omp barrier"))
    assert ("ACC120", 13) in found


def test_a_block_variable_declared_outside_the_loop_is_not_counted() -> None:
    src = (
        _BLOCKS.replace("{hi}", "1 + (t + 1) * N / nt")
        .replace("{sync}", "")
        .replace("int t =", "int i, t =")
        .replace("for (int i", "for (i")
    )
    assert _errors(src) == []


_CAPTURE = """\
    #define N 256
    int buf[N + 2], sums[N];
    void f(void) {
      int next = 1;
      #pragma omp parallel for
      for (int i = 0; i < N; i++) {
        int k;
        #pragma omp atomic capture
        {
          k = next;
          next += 1;
        }
        buf[k] = i;
        sums[i] = buf[{index}];
      }
    }
"""


def test_a_block_capture_over_several_lines_is_followed() -> None:
    # like `k = next++;`: each iteration its own `k`, and `k - 1` another's
    assert ("ACC101", 13) in _errors(_CAPTURE.replace("{index}", "k - 1"))
    assert _errors(_CAPTURE.replace("{index}", "k")) == []


_SEGMENTS = """\
    #define R 50
    int start[R], out[4 * R + 4];
    void f(void) {
      for (int r = 0; r < R; r++)
        start[r] = {stride} * r;
      #pragma omp parallel for
      for (int r = 0; r < R; r++)
        for (int k = 0; k < 4; k++)
          {write}
    }
"""


def test_segments_from_a_start_table_that_overlap_meet() -> None:
    src = _SEGMENTS.replace("{stride}", "3").replace(
        "{write}", "out[start[r] + k] = r;"
    )
    found = _found(src)
    assert [(c, line) for c, line, _ in found] == [("ACC101", 9)]
    assert "`start[r] = 3 * r` (line 5)" in found[0][2]


def test_segments_from_a_start_table_apart_do_not_meet() -> None:
    src = _SEGMENTS.replace("{stride}", "4").replace(
        "{write}", "out[start[r] + k] = r;"
    )
    assert _errors(src) == []


def test_a_segment_write_under_a_branch_is_not_sure() -> None:
    src = _SEGMENTS.replace("{stride}", "3").replace(
        "{write}", "if (out[0] >= 0) out[start[r] + k] = r;"
    )
    assert _errors(src) == []


_COUNTING = """\
    #include <omp.h>
    #define T 4
    int slot[T], got[T];
    void f(void) {
      int arrived = 0;
      #pragma omp parallel num_threads(T)
      {
        int t = omp_get_thread_num();
        int nt = omp_get_num_threads();
        int seen;
        {before}
        #pragma omp atomic update seq_cst
        arrived += 1;
        {after}
        do {
          #pragma omp atomic read seq_cst
          seen = arrived;
        } while (seen < {size});
        got[t] = slot[(t + 1) % nt];
      }
    }
"""


def _counting(before: str, after: str, size: str = "nt") -> str:
    return (
        _COUNTING.replace("{before}", before)
        .replace("{after}", after)
        .replace("{size}", size)
    )


def test_a_slot_published_after_the_bump_of_a_counting_barrier_races() -> None:
    src = _counting("", "slot[t] = 10 * (t + 1);")
    assert ("ACC120", 19) in _errors(src)


def test_a_slot_published_before_the_bump_of_a_counting_barrier() -> None:
    src = _counting("slot[t] = 10 * (t + 1);", "")
    assert list(check_file(textwrap.dedent(src), "t.c")) == []


def test_a_spin_on_a_literal_is_no_counting_barrier() -> None:
    # the team may have fewer threads than 4: nothing is decided
    assert _errors(_counting("", "slot[t] = 10 * (t + 1);", "4")) == []
