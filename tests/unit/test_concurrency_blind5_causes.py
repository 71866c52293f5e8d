"""Causes found by the fifth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(c, line) for c, line, level in _found(src) if level == "ERROR"]


_SLOTS = """\
    #include <omp.h>
    int a[64], b[64];
    void f(void) {
      #pragma omp parallel{team}
      {
        int t = omp_get_thread_num();
        int n = omp_get_num_threads();
        a[t] = t;{barrier}
        b[t] = a[{read}];
      }
    }
"""


def _slots(read: str, team: str = "", barrier: str = "") -> str:
    return (
        _SLOTS.replace("{read}", read)
        .replace("{team}", team)
        .replace("{barrier}", barrier)
    )


def test_team_size_in_a_thread_slot_is_followed() -> None:
    # `n` is the team size: thread 0 reads the slot thread 1 writes.
    assert ("ACC120", 9) in _errors(_slots("(t + 1) % n"))
    assert ("ACC120", 9) in _errors(_slots("n - 1 - t", " num_threads(4)"))
    assert ("ACC120", 9) in _errors(_slots("(t + 1) % 4"))


def test_team_size_slot_after_a_barrier_is_clean() -> None:
    assert _errors(_slots("(t + 1) % n", barrier="\n    #pragma omp barrier")) == []


def test_own_slot_through_the_team_size_is_clean() -> None:
    # `t % n` is `t` itself; `t + n` is past every thread's own slot.
    assert _found(_slots("t % n", " num_threads(4)")) == []
    # Without `num_threads` only the teams of 2..8 are tried: a warning at most.
    assert _errors(_slots("t % n")) == []
    assert _found(_slots("t + n", " num_threads(4)")) == []


def test_slot_that_meets_only_in_large_teams_is_a_warning() -> None:
    # Teams of 2..8 never read a slot a thread writes; a team of 10 does.
    found = _found(_slots("(t + 9) % 64"))
    assert [(c, level) for c, _, level in found] == [("ACC123", "WARNING")]


def test_team_size_rewritten_in_the_region_is_not_followed() -> None:
    src = _slots("(t + 1) % n").replace("a[t] = t;", "a[t] = t; n = n / 2;")
    assert not any(c == "ACC120" for c, _ in _errors(src))


_SPIN = """\
    #include <stdio.h>
    int main(void) {
      int data = 0, flag = 0;
      #pragma omp parallel sections num_threads(2)
      {
        #pragma omp section
        {
          data = 1;
          #pragma omp flush
          {write}
        }
        #pragma omp section
        {
          {spin}
          printf("%d\\n", data);
        }
      }
      return 0;
    }
"""


def test_plain_flag_spun_on_in_a_while_condition_races() -> None:
    src = _SPIN.replace("{write}", "flag = 1;").replace(
        "{spin}", "while (flag == 0) {\n      #pragma omp flush\n      }"
    )
    assert ("ACC120", 14) in _errors(src)


def test_plain_flag_spun_on_in_a_do_while_condition_races() -> None:
    src = _SPIN.replace("{write}", "flag = 1;").replace(
        "{spin}", "do {\n      #pragma omp flush\n      } while (!flag);"
    )
    assert ("ACC120", 16) in _errors(src)


def test_atomic_flag_in_a_while_condition_is_no_race() -> None:
    src = _SPIN.replace(
        "{write}", "#pragma omp atomic write release\n      flag = 1;"
    ).replace(
        "{spin}",
        "int f = 0;\n      while (!f) {\n      #pragma omp atomic read acquire\n"
        "      f = flag;\n      }",
    )
    assert _errors(src) == []


_ALIAS = """\
    #define N 100
    double a[N + 1];
    void f(double *q) {
      double *p = {init};
      #pragma omp parallel for
      for (int i = 0; i < N; i++)
        p[i] = {read} + 1.0;
    }
"""


def _alias(init: str, read: str) -> str:
    return _ALIAS.replace("{init}", init).replace("{read}", read)


def test_pointer_into_an_array_races_with_the_array_itself() -> None:
    # `p[i]` is `a[i + 1]`: iteration i + 1 writes what iteration i reads.
    assert ("ACC101", 7) in _errors(_alias("a + 1", "a[i]"))
    assert ("ACC101", 7) in _errors(_alias("&a[2]", "a[i]"))


def test_pointer_into_a_parameter_races_with_the_parameter() -> None:
    assert ("ACC101", 7) in _errors(_alias("q + 1", "q[i]"))


def test_pointer_and_array_on_one_element_per_iteration_are_clean() -> None:
    assert _errors(_alias("a + 1", "a[i + 1]")) == []
    assert _errors(_alias("a", "a[i]")) == []


def test_reassigned_parameter_is_not_one_base() -> None:
    src = _alias("q + 1", "q[i]").replace("double *p", "q = q + 4;\n  double *p")
    assert not any(c == "ACC101" for c, _ in _errors(src))


_TURNS = """\
    #define N 64
    double u[N], v[N];
    void f(void) {
      #pragma omp parallel
      for (int step = 0; step < 10; step++) {
        #pragma omp for
        for (int i = 1; i < N - 1; i++)
          v[i] = 0.5 * ({first});
        #pragma omp for nowait
        for (int i = 1; i < N - 1; i++)
          u[i] = v[i];{after}
      }
    }
"""


def _turns(first: str = "u[i - 1] + u[i + 1]", after: str = "") -> str:
    return _TURNS.replace("{first}", first).replace("{after}", after)


def test_nowait_loop_races_with_the_first_loop_of_the_next_turn() -> None:
    # No barrier past the `nowait` loop: the next step reads `u` too early.
    assert ("ACC111", 8) in _errors(_turns())


def test_barrier_closing_the_turn_orders_the_next_one() -> None:
    assert _errors(_turns(after="\n    #pragma omp barrier")) == []


def test_next_turn_that_does_not_read_the_array_is_clean() -> None:
    assert _errors(_turns(first="v[i] + 1.0")) == []


_STATIC = """\
    int a[100], b[100];
    void f(void) {
      #pragma omp parallel
      {
        {outer}
        #pragma omp for
        for (int i = 0; i < 100; i++) {
          {inner}
          tmp = a[i] + i;
          b[i] = tmp;
        }
      }
    }
"""


def _static(outer: str = "", inner: str = "") -> str:
    return _STATIC.replace("{outer}", outer).replace("{inner}", inner)


def test_static_local_of_the_region_is_shared_by_its_threads() -> None:
    assert ("ACC103", 9) in _errors(_static(outer="static int tmp;"))


def test_static_local_of_the_loop_body_is_shared_by_its_iterations() -> None:
    found = check_file(textwrap.dedent(_static(inner="static int tmp;")), "t.c")
    shared = [f for f in found if f.code == "ACC103"]
    assert [f.span.line for f in shared] == [9]
    assert "drop `static`" in shared[0].message


def test_plain_locals_of_the_region_and_the_body_stay_private() -> None:
    assert _errors(_static(outer="int tmp;")) == []
    assert _errors(_static(inner="int tmp;")) == []


def test_static_initializer_runs_once_not_per_thread() -> None:
    # Only the initializer writes `k`: no thread or iteration writes it.
    src = _static(outer="static int k = 3;").replace("a[i] + i", "a[i] + k")
    assert _errors(src.replace("tmp = ", "int tmp = ")) == []
    src = _static(inner="static const int k = 3;").replace("a[i] + i", "a[i] + k")
    assert _errors(src.replace("tmp = ", "int tmp = ")) == []


_FOLD = """\
    #define N 100
    int a[N], b[N];
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < N; i++)
        {write}
    }
"""


def test_subscript_folding_iterations_onto_one_element_is_a_race() -> None:
    # Iterations 0 and 1 both write `a[0]`: an output dependence, surely.
    assert ("ACC101", 6) in _errors(_FOLD.replace("{write}", "a[i / 2] = i;"))
    assert ("ACC101", 6) in _errors(_FOLD.replace("{write}", "a[i % 10] = i;"))


def test_folding_subscript_under_a_branch_or_atomic_is_no_error() -> None:
    # `i * i / 200` is no affine quotient: only evaluating it shows the collision.
    assert ("ACC101", 6) in _errors(_FOLD.replace("{write}", "a[i * i / 200] = i;"))
    guarded = "if (b[i] > 0)\n      a[i * i / 200] = i;"
    assert not any(c == "ACC101" for c, _ in _errors(_FOLD.replace("{write}", guarded)))
    # `i / 2` is an exact dependence (a quotient key), certain under a branch
    # like `a[i % 10]`'s.
    for sub in ("i / 2", "i % 10"):
        branch = f"if (b[i] > 0)\n      a[{sub}] = i;"
        assert ("ACC101", 7) in _errors(_FOLD.replace("{write}", branch))
    atomic = "{\n  #pragma omp atomic write\n  a[i / 2] = i;\n  }"
    assert _errors(_FOLD.replace("{write}", atomic)) == []


def test_subscript_that_keeps_iterations_apart_is_no_error() -> None:
    assert _errors(_FOLD.replace("{write}", "a[i / 1] = i;")) == []


_NOGROUP = """\
    #define N 100
    int a[N + 10];
    int f(void) {
      int s = 0;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp taskloop nogroup
        for (int i = 0; i < N; i++)
          a[i] = i;
        s = {read};
      }
      return s;
    }
"""


def test_macro_loop_bounds_decide_a_task_pair() -> None:
    # `N` is 100: element 50 is surely one the taskloop's tasks write.
    assert ("ACC122", 11) in _errors(_NOGROUP.replace("{read}", "a[50]"))
    assert ("ACC122", 11) in _errors(_NOGROUP.replace("{read}", "a[N - 1]"))


def test_macro_element_past_the_loop_is_clean() -> None:
    assert _found(_NOGROUP.replace("{read}", "a[N + 5]")) == []


_SHIFT = """\
    #define N 100
    static void shift(double *dst, const double *src, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++)
        dst[i] = src[i] + 1.0;
    }
    void run(void) {
      double a[N + 1], b[N + 1];
      shift({args}, N);
    }
"""


def test_call_binding_two_parameters_into_one_array_races() -> None:
    # At this call `dst[i]` is `a[i + 1]`: iteration i + 1 writes what i reads.
    assert ("ACC101", 5) in _errors(_SHIFT.replace("{args}", "a + 1, a"))
    assert ("ACC101", 5) in _errors(_SHIFT.replace("{args}", "a, &a[1]"))


def test_call_binding_distinct_arrays_or_one_element_is_clean() -> None:
    assert _errors(_SHIFT.replace("{args}", "a, b")) == []
    assert _errors(_SHIFT.replace("{args}", "a, a")) == []


def test_call_with_a_trip_too_short_for_the_distance_is_clean() -> None:
    src = _SHIFT.replace("{args}", "a + 5, a").replace(
        "shift(a + 5, a, N)", "shift(a + 5, a, 3)"
    )
    assert _errors(src) == []


_SET = """\
    #define N 100
    int g[N];
    static void set(int k, int v) { g[k] = v; }
    void f(void) {
      #pragma omp parallel for
      for (int i = 0; i < N; i++)
        set({args});
    }
"""


def test_callee_writing_one_element_for_two_iterations_races() -> None:
    assert ("ACC124", 7) in _errors(_SET.replace("{args}", "i / 2, i"))
    assert ("ACC124", 7) in _errors(_SET.replace("{args}", "0, i"))
    # The arguments are substituted at once: `v` is not the loop variable.
    assert ("ACC124", 7) in _errors(_SET.replace("{args}", "N - 1, i"))


def test_callee_writing_each_iterations_own_element_is_no_error() -> None:
    assert _errors(_SET.replace("{args}", "i, 0")) == []
    assert _errors(_SET.replace("{args}", "N - 1 - i, i")) == []


def test_callee_write_under_a_branch_or_critical_is_no_error() -> None:
    branch = _SET.replace("{ g[k] = v; }", "{ if (v > 50) g[k] = v; }")
    assert _errors(branch.replace("{args}", "0, i")) == []
    critical = _SET.replace(
        "{ g[k] = v; }", "{\n  #pragma omp critical\n  g[k] = v;\n}"
    )
    assert _errors(critical.replace("{args}", "0, i")) == []


_DEAL = """\
    #include <omp.h>
    #define N 1000
    double a[N + 1], sum;
    void f(void) {
      #pragma omp parallel
      {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        for (int i = t; i < N; i += n)
          {body}
      }
    }
"""


def test_loop_dealing_iterations_to_threads_runs_on_two_of_them() -> None:
    # Threads 0 and 1 each run the first turn: the shared `sum` races.
    assert ("ACC120", 9) in _errors(_DEAL.replace("{body}", "sum += a[i];"))


def test_dealt_iterations_reaching_a_neighbours_element_race() -> None:
    # Thread 0 reads a[1] at i = 0 while thread 1 writes a[1] at i = 1.
    assert ("ACC120", 9) in _errors(_DEAL.replace("{body}", "a[i] = a[i + 1];"))


def test_dealt_iterations_on_their_own_elements_are_no_error() -> None:
    assert _errors(_DEAL.replace("{body}", "a[i] = 2 * a[i];")) == []


def test_dealing_loop_below_one_runs_on_thread_zero_only() -> None:
    src = _DEAL.replace("i < N", "i < 1").replace("{body}", "sum += a[i];")
    assert _errors(src) == []


_BRANCH_WAIT = """\
    int f(int c) {
      int x = 0, y = 0;
      #pragma omp parallel
      #pragma omp single
      {
        {before}
        if (c) {
          {inside}
          #pragma omp taskwait
          y = x;
        }
        y += x;
      }
      return y;
    }
"""


def test_taskwait_in_an_if_arm_does_not_order_code_after_the_if() -> None:
    src = _BRANCH_WAIT.replace("{before}", "#pragma omp task shared(x)\n    x = 3;")
    assert ("ACC122", 13) in _errors(src.replace("{inside}", ""))


def test_taskwait_in_an_if_arm_orders_its_own_arm_and_tasks() -> None:
    before = _BRANCH_WAIT.replace("{before}", "#pragma omp task shared(x)\n    x = 3;")
    assert not any(line == 11 for _, line in _errors(before.replace("{inside}", "")))
    inside = _BRANCH_WAIT.replace("{before}", "").replace(
        "{inside}", "#pragma omp task shared(x)\n      x = 3;"
    )
    assert _errors(inside) == []


_HALVES = """\
    #define N 100
    int a[N];
    int f(void) {
      int s = 0;
      #pragma omp parallel sections
      {
        #pragma omp section
        for (int i = 0; i < N / 2; i++)
          a[i] = i;
        #pragma omp section
        for (int i = N / 2; i < N; i++)
          {second}
      }
      return s;
    }
"""


def test_macro_division_in_bounds_and_subscripts_is_followed() -> None:
    # `a[i - N / 2]` over N/2..N-1 reads the first half the other section writes.
    assert ("ACC120", 12) in _errors(_HALVES.replace("{second}", "s += a[i - N / 2];"))


def test_sections_on_their_own_halves_are_clean() -> None:
    assert _found(_HALVES.replace("{second}", "a[i] = -i;")) == []


_WHILE = """\
    int total;
    void f(void) {
      #pragma omp parallel
      {
        int k = {start};
        while (k < 10) {
          total = total + k;
          {step}
        }
      }
    }
"""


def test_while_over_a_thread_uniform_counter_runs_on_every_thread() -> None:
    src = _WHILE.replace("{start}", "0").replace("{step}", "k++;")
    assert ("ACC120", 7) in _errors(src)


def test_while_whose_first_test_fails_runs_nowhere() -> None:
    src = _WHILE.replace("{start}", "20").replace("{step}", "k++;")
    assert _errors(src) == []


def test_while_over_a_counter_from_the_thread_number_is_no_error() -> None:
    # Only thread 0 starts below 10: the others never run the body.
    src = _WHILE.replace("{start}", "omp_get_thread_num() * 10")
    assert _errors(src.replace("{step}", "k++;")) == []


_TEAMS = """\
    #include <omp.h>
    int a[64];
    void f(void) {
      #pragma omp target teams num_teams(4) map(tofrom : a)
      #pragma omp parallel num_threads(4)
      {body}
    }
"""


def test_team_number_is_one_value_for_the_threads_of_a_team() -> None:
    src = _TEAMS.replace("{body}", "a[omp_get_team_num()] += 1;")
    assert ("ACC120", 6) in _errors(src)


def test_team_and_thread_numbers_together_are_one_slot_each() -> None:
    body = "a[omp_get_team_num() * 4 + omp_get_thread_num()] = 1;"
    assert not any(c == "ACC120" for c, _ in _errors(_TEAMS.replace("{body}", body)))
