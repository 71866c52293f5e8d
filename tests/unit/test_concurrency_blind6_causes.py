"""Causes found by the sixth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_FINAL = """\
    int x, y;
    void f(void) {
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task final({flag}) shared(x, y)
        {
          #pragma omp task shared(x)
          x = 1;
          y = x + 1;
        }
      }
    }
"""


def test_a_task_made_in_a_final_task_is_included() -> None:
    # final(1): the child runs to its end before its parent goes on.
    assert _errors(_FINAL.replace("{flag}", "1")) == []
    assert _errors(_FINAL.replace("{flag}", "true")) == []


def test_a_task_made_in_a_task_not_final_may_still_run() -> None:
    assert ("ACC122", 10) in _errors(_FINAL.replace("{flag}", "0"))
    assert ("ACC122", 10) in _errors(_FINAL.replace("{flag}", "n > 2"))


def test_final_reaches_grandchildren() -> None:
    src = _FINAL.replace("{flag}", "1").replace(
        "#pragma omp task shared(x)\n      x = 1;",
        "#pragma omp task shared(x)\n      {\n"
        "        #pragma omp task shared(x)\n        x = 1;\n      }",
    )
    assert _errors(src) == []


_OWN_LOCK = """\
    #include <omp.h>
    int count;
    void f(void) {
      #pragma omp parallel{clause}
      {
        {decl}omp_init_lock(&l);
        omp_set_lock(&l);
        count += 1;
        omp_unset_lock(&l);
      }
    }
"""


def _own_lock(decl: str, clause: str = "") -> str:
    return _OWN_LOCK.replace("{decl}", decl).replace("{clause}", clause)


def test_a_lock_each_thread_declares_excludes_nothing() -> None:
    assert ("ACC120", 9) in _errors(_own_lock("omp_lock_t l;\n    "))


def test_a_private_lock_excludes_nothing() -> None:
    src = "omp_lock_t l;\n" + _own_lock("", " private(l)")
    assert ("ACC120", 9) in _errors(src)


def test_a_lock_shared_by_the_team_excludes() -> None:
    assert _errors("omp_lock_t l;\n" + _own_lock("")) == []


def test_a_lock_declared_in_a_loop_body_excludes_nothing() -> None:
    src = """\
        #include <omp.h>
        int count;
        void f(void) {
          #pragma omp parallel for
          for (int i = 0; i < 100; i++) {
            omp_lock_t l;
            omp_init_lock(&l);
            omp_set_lock(&l);
            count += i;
            omp_unset_lock(&l);
          }
        }
    """
    assert [c for c, line in _errors(src) if line == 9] != []
    shared = src.replace("    omp_lock_t l;\n", "").replace(
        "int count;", "int count;\nomp_lock_t l;"
    )
    assert _errors(shared) == []


_GUARDS = """\
    long total;
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < 1000; i++) {
        if (i % 2) {
          #pragma omp {one}
          total += i;
        } else {
          #pragma omp {other}
          total = total + 2 * i;
        }
      }
    }
"""


def _guards(one: str, other: str) -> list[tuple[str, int]]:
    return _errors(_GUARDS.replace("{one}", one).replace("{other}", other))


def test_loop_guards_that_do_not_exclude_each_other_race() -> None:
    assert ("ACC121", 7) in _guards("critical(a)", "critical(b)")
    assert ("ACC121", 7) in _guards("atomic", "critical")
    assert ("ACC121", 7) in _guards("critical", "critical(b)")


def test_loop_guards_of_one_name_exclude() -> None:
    assert _guards("critical", "critical") == []
    assert _guards("critical(a)", "critical(a)") == []


_NESTED = """\
    #include <omp.h>
    int slot[64];
    void f(void) {
      #pragma omp parallel num_threads(2)
      {
        int outer = omp_get_thread_num();
        #pragma omp parallel num_threads(2) firstprivate(outer)
        slot[{index}] += 1;
      }
    }
"""


def _nested(index: str) -> list[tuple[str, int]]:
    return _errors(_NESTED.replace("{index}", index))


def test_a_nested_teams_thread_number_repeats_across_outer_threads() -> None:
    # every outer thread's inner team has a thread 0: slot[0] is written twice
    assert ("ACC120", 8) in _nested("omp_get_thread_num()")
    assert ("ACC120", 8) in _nested("omp_get_thread_num() + 1")


def test_outer_and_inner_thread_numbers_together_are_apart() -> None:
    assert _nested("outer * 8 + omp_get_thread_num()") == []


_INLINE = """\
    #include <omp.h>
    int slot[64];
    void f(void) {
      #pragma omp parallel num_threads(4)
      slot[{index}] += 1;
    }
"""


def test_an_inline_thread_number_folded_by_division_meets() -> None:
    # threads 0 and 1 both land on slot 0
    src = _INLINE.replace("{index}", "omp_get_thread_num() / 2")
    assert ("ACC120", 5) in _errors(src)


def test_an_inline_thread_number_kept_apart_is_clean() -> None:
    assert _errors(_INLINE.replace("{index}", "omp_get_thread_num() * 2")) == []
    assert _errors(_INLINE.replace("{index}", "omp_get_thread_num() + 1")) == []


_TEAM_SLOT = """\
    #include <omp.h>
    int part[16];
    void f(void) {
      #pragma omp target teams num_teams({teams}) map(tofrom : part)
      {
        part[{index}] += 1;
      }
    }
"""


def _team_slot(index: str, teams: str = "4") -> list[tuple[str, int]]:
    return _errors(_TEAM_SLOT.replace("{index}", index).replace("{teams}", teams))


def test_team_number_slots_two_teams_share_race() -> None:
    assert ("ACC125", 6) in _team_slot("omp_get_team_num() / 2")
    assert ("ACC125", 6) in _team_slot("omp_get_team_num() % 2")


def test_team_number_slots_apart_are_clean() -> None:
    assert _team_slot("omp_get_team_num()") == []
    assert _team_slot("omp_get_team_num() * 2 + 1") == []
    assert _team_slot("omp_get_team_num() / 2", teams="1") == []


_COPIED = """\
    #include <omp.h>
    int store[64];
    static int *q;
    #pragma omp threadprivate(q)
    void f(void) {
      int *p = store;
      q = store;
      #pragma omp parallel {clause}
      {
        {body}
      }
    }
"""


def _copied(clause: str, body: str) -> list[tuple[str, int]]:
    return _errors(_COPIED.replace("{clause}", clause).replace("{body}", body))


def test_a_pointer_copied_to_every_thread_reaches_one_object() -> None:
    assert ("ACC120", 10) in _copied("copyin(q)", "q[1] += 1;")
    assert ("ACC120", 10) in _copied("firstprivate(p)", "p[0] += 1;")
    assert ("ACC120", 10) in _copied("firstprivate(p)", "*p += 1;")


def test_copied_pointers_to_own_elements_or_reset_are_clean() -> None:
    assert _copied("firstprivate(p)", "p[omp_get_thread_num()] += 1;") == []
    reset = "p = &store[omp_get_thread_num()];\n    p[0] += 1;"
    assert _copied("firstprivate(p)", reset) == []
    assert _copied("copyin(q)", "q = &store[omp_get_thread_num()]; q[0] = 1;") == []


_FORTRAN_NEST = """\
program p
  implicit none
  integer :: i, j, k
  real :: a(10, 10)
  !$omp {directive}
  do i = 1, 10
    do j = 1, 10
      k = i + j
      a(j, i) = real(k)
    end do
  end do
  print *, a(1, 1)
end program p
"""


def _fortran(directive: str) -> list[tuple[str, int]]:
    found = check_file(_FORTRAN_NEST.replace("{directive}", directive), "t.f90")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


def test_fortran_sequential_do_variables_are_private_in_parallel() -> None:
    # OpenMP: in Fortran, a sequential loop's variable is private in the
    # innermost parallel construct around it; `k` is not a loop variable.
    found = _fortran("parallel do")
    assert not [c for c, line in found if line == 7]
    assert ("ACC103", 8) in found


def test_c_inner_loop_variables_still_need_private() -> None:
    src = """\
        double a[10][10];
        void f(void) {
          int j;
          #pragma omp parallel for
          for (int i = 0; i < 10; i++)
            for (j = 0; j < 10; j++)
              a[i][j] = i + j;
        }
    """
    assert ("ACC103", 6) in _errors(src)


_ROW_GUARD = """\
    #define N 32
    int m[N][N];
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < N - 1; i++)
        for (int j = 0; j < N; j++)
          if ({cond})
            m[i][j + 1] = m[i][j] + 1;
    }
"""


def _row_guard(cond: str) -> list[tuple[str, int]]:
    return _errors(_ROW_GUARD.replace("{cond}", cond))


def test_an_if_that_lets_the_overrun_through_keeps_acc113() -> None:
    assert ("ACC113", 8) in _row_guard("j < N")
    assert ("ACC113", 8) in _row_guard("j <= N - 1")
    assert ("ACC113", 8) in _row_guard("N > j")


def test_an_if_that_stops_the_overrun_or_is_not_read_silences_acc113() -> None:
    assert _row_guard("j + 1 < N") == []
    assert _row_guard("N - 1 > j") == []
    assert _row_guard("m[i][j] > 0") == []


_COPY = """\
    #include <string.h>
    #include <omp.h>
    char buf[64];
    void f(const char *src) {
      #pragma omp parallel
      {
        {body}
      }
    }
"""


def test_a_library_copy_into_a_shared_array_by_every_thread_races() -> None:
    assert ("ACC120", 7) in _errors(_COPY.replace("{body}", "memcpy(buf, src, 16);"))
    assert ("ACC120", 7) in _errors(_COPY.replace("{body}", "strcpy(buf, src);"))


def test_a_library_copy_made_once_or_into_own_memory_is_clean() -> None:
    once = "#pragma omp single\n    memcpy(buf, src, 16);"
    assert _errors(_COPY.replace("{body}", once)) == []
    own = "char mine[64];\n    memcpy(mine, src, 16);"
    assert _errors(_COPY.replace("{body}", own)) == []


_LOCK_ARRAY = """\
    #include <omp.h>
    #define NL 8
    omp_lock_t locks[NL];
    int hist[NL];
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < 1000; i++) {
        omp_set_lock(&locks[{lock}]);
        hist[{data}]++;
        omp_unset_lock(&locks[{lock}]);
      }
    }
"""


def _lock_array(lock: str, data: str) -> list[tuple[str, int]]:
    return _errors(_LOCK_ARRAY.replace("{lock}", lock).replace("{data}", data))


def test_one_element_under_two_elements_of_a_lock_array_races() -> None:
    assert ("ACC121", 9) in _lock_array("i % NL", "i % 4")
    assert ("ACC121", 9) in _lock_array("i % 4", "i % 2")


def test_elements_under_their_own_lock_element_are_clean() -> None:
    assert _lock_array("i % 4", "i % 4") == []
    assert _lock_array("i % 2", "i % 2") == []
    assert _lock_array("(i % 8) / 2", "(i % 8) / 2") == []


def test_one_fixed_element_under_two_critical_names_races() -> None:
    src = _GUARDS.replace("long total;", "long total[4];").replace("total", "total[0]")
    src = src.replace("long total[0][4];", "long total[4];")
    assert ("ACC121", 7) in _errors(
        src.replace("{one}", "critical(a)").replace("{other}", "critical(b)")
    )
    apart = src.replace("total[0] = total[0] + 2 * i", "total[1] = total[1] + 2 * i")
    assert (
        _errors(apart.replace("{one}", "critical(a)").replace("{other}", "critical(b)"))
        == []
    )
