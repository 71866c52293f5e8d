"""Races between OpenMP teams and between OpenACC queues: ACC125, ACC126, ACC127."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.analysis.findings import Severity

NEW = {"ACC104", "ACC125", "ACC126", "ACC127"}


def _found(src: str) -> list[tuple[str, Severity, int]]:
    items = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.level, f.span.line) for f in items if f.code in NEW]


def _codes(src: str) -> set[str]:
    return {code for code, _, _ in _found(src)}


def _fixed(src: str) -> tuple[str, set[str]]:
    """The first quick fix's text, and the new codes left once it is applied."""
    text = textwrap.dedent(src)
    fixes = [f.insert for f in check_file(text, "t.c") if f.insert is not None]
    assert fixes
    at, inserted = fixes[0]
    data = text.encode()
    fixed = (data[:at] + inserted.encode() + data[at:]).decode()
    return inserted, {f.code for f in check_file(fixed, "t.c") if f.code in NEW}


TEAMS_LOOP = """
void f(int n, double *a) {
  #pragma omp target teams map(tofrom: a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = a[i] + 1.0;
}
"""


def test_teams_without_distribute_races_between_teams() -> None:
    assert _found(TEAMS_LOOP) == [("ACC125", Severity.ERROR, 5)]


def test_distribute_quick_fix_makes_the_teams_share_the_loop() -> None:
    inserted, left = _fixed(TEAMS_LOOP)
    assert inserted == " distribute"
    assert left == set()


def test_target_teams_distribute_parallel_for_is_race_free() -> None:
    src = """
    void f(int n, const double *a, double *b) {
      #pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: b[0:n])
      for (int i = 0; i < n; i++)
        b[i] = 2.0 * a[i];
    }
    """
    assert _codes(src) == set()


def test_team_local_and_team_indexed_writes_do_not_race() -> None:
    src = """
    #include <omp.h>
    void f(double *slots, int n) {
      #pragma omp target teams map(tofrom: slots[0:n])
      {
        int t = omp_get_team_num();
        double v = 2.0 * t;
        slots[t] = v;
        slots[omp_get_team_num() + 1] = v;
      }
    }
    """
    assert _codes(src) == set()


def test_private_scalar_of_the_teams_does_not_race() -> None:
    src = """
    void f(int n, double *a) {
      double t = 0.0;
      #pragma omp target teams private(t) map(to: a[0:n])
      for (int i = 0; i < n; i++)
        t = a[i];
    }
    """
    assert _codes(src) == set()


def test_thread_reduction_inside_undistributed_teams_still_races() -> None:
    src = """
    double f(int n, const double *a) {
      double s = 0.0;
      #pragma omp target teams map(to: a[0:n]) map(tofrom: s)
      {
        #pragma omp parallel for reduction(+:s)
        for (int i = 0; i < n; i++)
          s += a[i];
      }
      return s;
    }
    """
    assert _codes(src) == {"ACC125"}


def test_reduction_missing_at_team_level_is_acc104() -> None:
    src = """
    double f(int n, const double *a) {
      double s = 0.0;
      #pragma omp target teams distribute map(to: a[0:n*n]) map(tofrom: s)
      for (int i = 0; i < n; i++) {
        #pragma omp parallel for reduction(+:s)
        for (int j = 0; j < n; j++)
          s += a[i * n + j];
      }
      return s;
    }
    """
    assert _codes(src) == {"ACC104"}


def test_critical_does_not_exclude_across_teams() -> None:
    src = """
    int f(int n, const double *a) {
      int c = 0;
      #pragma omp target teams distribute parallel for map(to: a[0:n]) map(tofrom: c)
      for (int i = 0; i < n; i++) {
        #pragma omp critical
        c = c + 1;
      }
      return c;
    }
    """
    assert _found(src) == [("ACC126", Severity.ERROR, 7)]


def test_atomic_across_teams_is_race_free() -> None:
    src = """
    int f(int n, const double *a) {
      int c = 0;
      #pragma omp target teams distribute parallel for map(to: a[0:n]) map(tofrom: c)
      for (int i = 0; i < n; i++) {
        #pragma omp atomic update
        c += 1;
      }
      return c;
    }
    """
    assert _codes(src) == set()


HOST_READ = """
double f(int n, double *a) {
  #pragma acc parallel loop async(1) copy(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = 2.0 * a[i];
  double x = a[0];
  return x;
}
"""


def test_host_read_before_wait_races_with_the_queue() -> None:
    assert _found(HOST_READ) == [("ACC127", Severity.ERROR, 6)]


def test_wait_quick_fix_orders_the_host_after_the_queue() -> None:
    inserted, left = _fixed(HOST_READ)
    assert inserted == "  #pragma acc wait(1)\n"
    assert left == set()


def test_runtime_waits_and_polling_order_the_host() -> None:
    for wait in ("acc_wait(1);", "acc_wait_all();", "while (!acc_async_test(1));"):
        src = HOST_READ.replace("  double x", f"  {wait}\n  double x")
        assert _codes("#include <openacc.h>\n" + src) == set(), wait


def test_wait_for_another_queue_does_not_order() -> None:
    src = HOST_READ.replace("  double x", "  #pragma acc wait(2)\n  double x")
    assert _codes(src) == {"ACC127"}


def test_if_false_construct_moves_nothing() -> None:
    src = """
    void f(int n, double *a) {
      #pragma acc data copy(a[0:n])
      {
        #pragma acc parallel loop async(2)
        for (int i = 0; i < n; i++)
          a[i] = 1.0;
        #pragma acc update host(a[0:n]) wait(1) if(0)
        #pragma acc wait(2)
      }
    }
    """
    assert _codes(src) == set()


TWO_QUEUES = """
void f(int n, double *a, double *b) {
  #pragma acc data copy(a[0:n], b[0:n])
  {
    #pragma acc parallel loop async(1)
    for (int i = 0; i < n; i++)
      a[i] = 1.0;
    #pragma acc parallel loop async(2)WAIT
    for (int i = 0; i < n; i++)
      b[i] = a[i];
    #pragma acc wait
  }
}
"""


def test_second_queue_reading_the_first_queues_data_races() -> None:
    assert _found(TWO_QUEUES.replace("WAIT", "")) == [("ACC127", Severity.ERROR, 8)]


def test_wait_clause_and_queue_waits_order_queues() -> None:
    assert _codes(TWO_QUEUES.replace("WAIT", " wait(1)")) == set()
    queued = TWO_QUEUES.replace("WAIT", "").replace(
        "    #pragma acc parallel loop async(2)",
        "    #pragma acc wait(1) async(2)\n    #pragma acc parallel loop async(2)",
    )
    assert _codes(queued) == set()


def test_set_default_async_names_the_bare_queue() -> None:
    src = TWO_QUEUES.replace("WAIT", "").replace("async(1)", "async")
    src = src.replace("  {\n", "  {\n    #pragma acc set default_async(2)\n", 1)
    assert _codes(src) == set()


def test_disjoint_sections_of_one_array_do_not_race() -> None:
    src = """
    void f(int n, double *d) {
      #pragma acc data deviceptr(d)
      {
        #pragma acc parallel loop async(1)
        for (int x = 0; x < n; ++x)
          d[x] = 1.0;
        #pragma acc parallel loop async(2)
        for (int x = 0; x < n; ++x)
          d[n + x] = 2.0;
        #pragma acc wait
      }
    }
    """
    assert _codes(src) == set()


def test_gang_loop_accumulation_without_reduction_is_acc104() -> None:
    src = """
    double f(int n, const double *a) {
      double s = 0.0;
      #pragma acc parallel loop gang copyin(a[0:n])
      for (int i = 0; i < n; i++)
        s += a[i];
      return s;
    }
    """
    assert _found(src) == [("ACC104", Severity.WARNING, 6)]


GANG_REDUNDANT = """
void f(int n, double *a) {
  #pragma acc parallel GANGS copy(a[0:n])
  {
    for (int i = 0; i < n; i++)
      a[i] = a[i] + 1.0;
  }
}
"""


def test_code_outside_a_gang_loop_runs_in_every_gang() -> None:
    src = GANG_REDUNDANT.replace("GANGS", "num_gangs(4)")
    assert _found(src) == [("ACC125", Severity.ERROR, 6)]


def test_gang_count_left_to_the_implementation_is_a_warning() -> None:
    src = GANG_REDUNDANT.replace("GANGS ", "")
    assert _found(src) == [("ACC125", Severity.WARNING, 6)]


def test_one_gang_or_a_gang_loop_does_not_race() -> None:
    assert _codes(GANG_REDUNDANT.replace("GANGS", "num_gangs(1)")) == set()
    looped = GANG_REDUNDANT.replace("GANGS", "num_gangs(4)").replace(
        "    for (int i", "    #pragma acc loop gang\n    for (int i"
    )
    assert _codes(looped) == set()
    auto = GANG_REDUNDANT.replace("GANGS", "num_gangs(4)").replace(
        "    for (int i", "    #pragma acc loop\n    for (int i"
    )
    assert _codes(auto) == set()


def test_a_league_of_one_team_does_not_race() -> None:
    src = TEAMS_LOOP.replace("target teams", "target teams num_teams(1)")
    assert _codes(src) == set()
