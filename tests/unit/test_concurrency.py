"""The OpenMP concurrency model of `accls check`: phases, exclusion, tasks, data."""

from __future__ import annotations

import textwrap

import pytest
from accls.analysis.checks import check_file
from accls.analysis.findings import CATALOG, Severity
from accls.analysis.mhp_model import region_models
from accls.analysis.mhp_races import mhp_graph
from accls.frontend import parse_source

NEW = {"ACC120", "ACC121", "ACC122", "ACC123", "ACC124"}
CODES = {kind.code for kind in CATALOG}


def _found(src: str) -> list[tuple[str, Severity, int, str]]:
    items = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.level, f.span.line, f.message) for f in items if f.code in NEW]


def _codes(src: str) -> set[str]:
    return {code for code, _, _, _ in _found(src)}


MASTER_THEN_READ = """
void f(int n, double *a) {
  double s = 1.0;
  #pragma omp parallel
  {
    #pragma omp master
    s = 2.0;
    #pragma omp for
    for (int i = 0; i < n; i++)
      a[i] = a[i] * s;
  }
}
"""


def test_pair_names_both_lines_accesses_and_rule() -> None:
    ((code, level, line, message),) = _found(MASTER_THEN_READ)
    assert (code, level, line) == ("ACC120", Severity.ERROR, 10)
    assert "`s` (write, line 7)" in message
    assert "`s` (read, line 10)" in message
    assert "`master` at line 6 has no implied barrier" in message


def test_barrier_ends_the_phase() -> None:
    src = MASTER_THEN_READ.replace(
        "    #pragma omp for", "    #pragma omp barrier\n    #pragma omp for"
    )
    assert _codes(src) == set()


def test_thread_guard_is_one_thread() -> None:
    src = """
    #include <omp.h>
    void f(double *out) {
      double s = 0.0;
      #pragma omp parallel
      {
        int me = omp_get_thread_num();
        if (me == 0)
          s = 1.0;
        if (me == 0)
          out[0] = s;
      }
    }
    """
    assert _codes(src) == set()


def test_condition_on_a_private_value_is_only_a_warning() -> None:
    src = """
    #include <omp.h>
    int f(int k) {
      int s = 0;
      #pragma omp parallel
      {
        int me = omp_get_thread_num();
        if (me % k == 1)
          s = me;
      }
      return s;
    }
    """
    assert {(c, lv) for c, lv, _, _ in _found(src)} == {("ACC123", Severity.WARNING)}


def test_unknown_call_between_accesses_may_hold_a_barrier() -> None:
    src = """
    void sync_all(void);
    double f(void) {
      double s = 0.0, t = 0.0;
      #pragma omp parallel
      {
        #pragma omp master
        s = 1.0;
        sync_all();
        #pragma omp atomic
        t += s;
      }
      return t;
    }
    """
    ((code, level, _, message),) = _found(src)
    assert (code, level) == ("ACC123", Severity.WARNING)
    assert "`sync_all` at line 9 may hold a barrier" in message


def test_callee_with_a_barrier_splits_phases() -> None:
    src = """
    void sync_all(void) {
      #pragma omp barrier
    }
    double f(void) {
      double s = 0.0, t = 0.0;
      #pragma omp parallel
      {
        #pragma omp master
        s = 1.0;
        sync_all();
        #pragma omp atomic
        t += s;
      }
      return t;
    }
    """
    assert _codes(src) == set()


def test_unnamed_and_named_critical_do_not_exclude() -> None:
    src = """
    int f(void) {
      int c = 0;
      #pragma omp parallel
      {
        #pragma omp critical
        c = c + 1;
        #pragma omp critical(other)
        c = c + 2;
      }
      return c;
    }
    """
    ((code, _, _, message),) = _found(src)
    assert code == "ACC121"
    assert "an unnamed `critical`" in message
    assert "`critical(other)`" in message


def test_only_the_atomic_target_is_atomic() -> None:
    src = """
    int f(int k) {
      int total = 0, step = k;
      #pragma omp parallel
      {
        #pragma omp atomic
        total += step;
        #pragma omp single nowait
        step = 3;
      }
      return total;
    }
    """
    ((code, _, line, message),) = _found(src)
    assert (code, line) == ("ACC120", 9)
    assert "`step` (read, line 7)" in message


def test_taskwait_covers_children_but_not_grandchildren() -> None:
    child = """
    int f(void) {
      int x = 0, y = 0;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task
        x = 1;
        #pragma omp taskwait
        y = x;
      }
      return y;
    }
    """
    child = textwrap.dedent(child)
    assert _codes(child) == set()
    grandchild = child.replace(
        "#pragma omp task\n    x = 1;",
        "#pragma omp task\n    {\n      #pragma omp task\n      x = 1;\n    }",
    )
    assert _codes(grandchild) == {"ACC122"}


def test_depend_in_after_in_does_not_order() -> None:
    src = """
    int f(void) {
      int x = 0, y = 0;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task depend(in: y)
        x = 1;
        #pragma omp task depend(in: y)
        x = 2;
      }
      return x;
    }
    """
    src = textwrap.dedent(src)
    assert _codes(src) == {"ACC122"}
    ordered = src.replace("depend(in: y)\n    x = 2;", "depend(inout: y)\n    x = 2;")
    assert ordered != src
    assert _codes(ordered) == set()


def test_threadprivate_and_copyin_never_race() -> None:
    src = """
    int g;
    #pragma omp threadprivate(g)
    int f(void) {
      int out = 0;
      #pragma omp parallel copyin(g)
      {
        g = g + 1;
        #pragma omp atomic
        out += g;
      }
      return out;
    }
    """
    assert _codes(src) == set()
    shared = src.replace("#pragma omp threadprivate(g)", "").replace(" copyin(g)", "")
    assert _codes(shared) == {"ACC120"}


def test_static_in_callee_is_reported_at_the_call() -> None:
    src = """
    int next(void) { static int n; n = n + 1; return n; }
    int f(void) {
      int s = 0;
      #pragma omp parallel
      {
        int v = next();
        #pragma omp atomic
        s += v;
      }
      return s;
    }
    """
    ((code, level, line, message),) = _found(src)
    assert (code, level, line) == ("ACC124", Severity.ERROR, 7)
    assert "`n`" in message
    assert "`next`" in message


def test_mhp_graph_is_networkx_with_self_loops() -> None:
    source = parse_source(textwrap.dedent(MASTER_THEN_READ), "t.c")
    (model,) = region_models(source)
    graph = mhp_graph(model)
    assert graph.number_of_nodes() == len(model.accesses)
    rules = {data["kind"] for _, _, data in graph.edges(data=True)}
    assert rules == {"threads"}


@pytest.mark.parametrize(
    "body",
    [
        "#pragma omp task depend(out: *(p + k))\n x = 1;",
        "#pragma omp task depend(\n x = 1;",
        "#pragma omp critical(\n x = 1;",
        "#pragma omp frobnicate(x) barrier\n x = 1;",
        "#pragma omp task bogus_clause(x) if(\n x = 1;",
        "omp_set_lock(locks[k]); x = 1; omp_unset_lock(locks[k]);",
        "#pragma omp barrier\n goto out; out: x = 1;",
        "#pragma omp for\n",
        "#pragma omp taskwait depend(in: x)\n { x = 1",
    ],
)
def test_bad_input_gives_well_formed_findings_not_tracebacks(body: str) -> None:
    src = (
        "#include <omp.h>\nint f(int k, int *p, omp_lock_t **locks) {\n int x = 0;\n"
        f" #pragma omp parallel\n {{\n {body}\n }}\n return x;\n}}\n"
    )
    items = check_file(src, "t.c")
    # Some of these are too broken to judge (no finding); none may raise, and
    # what is reported is a catalog code with a message, inside the text.
    assert {f.code for f in items} <= CODES
    for f in items:
        assert f.message
        assert 0 <= f.span.start_byte <= f.span.end_byte <= len(src.encode())


def test_atomic_capture_read_and_write_forms_are_atomic() -> None:
    src = """
    int f(void) {
      int x = 0, got = 0;
      #pragma omp parallel
      {
        int v, w;
        #pragma omp atomic capture
        v = x++;
        #pragma omp atomic read
        w = x;
        #pragma omp atomic write
        x = v + w;
        #pragma omp atomic
        got += w;
      }
      return got;
    }
    """
    assert _codes(src) == set()
    assert _codes(src.replace("#pragma omp atomic read\n", "")) == {"ACC121"}


def test_mutexinoutset_siblings_exclude_each_other() -> None:
    src = """
    int f(void) {
      int x = 0;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task depend(mutexinoutset: x)
        x = x + 1;
        #pragma omp task depend(mutexinoutset: x)
        x = x + 2;
      }
      return x;
    }
    """
    assert _codes(src) == set()


def test_unreadable_region_gives_one_warning() -> None:
    src = """
    int f(int n) {
      int s = 0, t = 0;
      #pragma omp parallel
      {
        s = n;
        t = n;
        int )( broken;
      }
      return s + t;
    }
    """
    found = _found(src)
    assert [(c, lv) for c, lv, _, _ in found] == [("ACC123", Severity.WARNING)]
    assert "could not read line" in found[0][3]


def test_task_created_by_one_guarded_thread_has_one_instance() -> None:
    src = """
    #include <omp.h>
    int f(void) {
      int x = 0;
      #pragma omp parallel
      {
        if (omp_get_thread_num() == 0) {
          #pragma omp task
          x = x + 1;
        }
      }
      return x;
    }
    """
    assert _codes(src) == set()
    assert _codes(src.replace("if (omp_get_thread_num() == 0)", "")) == {"ACC120"}


def test_callee_with_worksharing_synchronises_the_team() -> None:
    src = """
    void scale(int n, double *a) {
      #pragma omp for
      for (int i = 0; i < n; i++)
        a[i] = 2.0 * a[i];
    }
    double f(int n, double *a) {
      double s = 0.0, t = 0.0;
      #pragma omp parallel
      {
        #pragma omp master
        s = 1.0;
        scale(n, a);
        #pragma omp atomic
        t += s;
      }
      return t;
    }
    """
    assert _codes(src) == set()
    assert _codes(src.replace("#pragma omp for", "#pragma omp for nowait")) == {
        "ACC120"
    }


def test_single_nowait_after_a_loop_is_not_repeated() -> None:
    src = """
    void f(int n, double *a) {
      #pragma omp parallel
      {
        #pragma omp for
        for (int i = 0; i < n; i++)
          a[i] = i;
        #pragma omp single nowait
        a[0] = -1.0;
      }
    }
    """
    src = textwrap.dedent(src)
    assert _codes(src) == set()
    looped = src.replace(
        "#pragma omp single nowait\n    a[0] = -1.0;",
        "for (int t = 0; t < 3; t++) {\n"
        "      #pragma omp single nowait\n      a[0] = -1.0;\n    }",
    )
    assert looped != src
    assert _codes(looped) == {"ACC120"}


def test_else_arm_of_a_thread_guard_runs_on_the_other_threads() -> None:
    src = """
    #include <omp.h>
    #include <stdio.h>
    int f(void) {
      int count = 0;
      #pragma omp parallel
      {
        if (omp_get_thread_num() == 0)
          count = omp_get_num_threads();
        else
          printf("%d\\n", count);
      }
      return count;
    }
    """
    assert {(c, lv) for c, lv, _, _ in _found(src)} == {("ACC120", Severity.ERROR)}


def _apply(src: str) -> tuple[str, set[str]]:
    """The text with the first offered repair applied, and the codes left."""
    text = textwrap.dedent(src)
    fixes = [f.insert for f in check_file(text, "t.c") if f.insert is not None]
    assert fixes, "no repair offered"
    at, inserted = fixes[0]
    data = text.encode()
    fixed = (data[:at] + inserted.encode() + data[at:]).decode()
    return inserted, {f.code for f in check_file(fixed, "t.c") if f.code in NEW}


def test_barrier_repair_orders_master_and_loop() -> None:
    inserted, left = _apply(MASTER_THEN_READ)
    assert inserted == "    #pragma omp barrier\n"
    assert left == set()


def test_taskwait_repair_before_the_creator_reads() -> None:
    src = """
    int fib(int n) {
      int i, j;
      if (n < 2)
        return n;
      #pragma omp task shared(i)
      i = fib(n - 1);
      #pragma omp task shared(j)
      j = fib(n - 2);
      return i + j;
    }
    """
    inserted, left = _apply(src)
    assert inserted == "  #pragma omp taskwait\n"
    assert left == set()


def test_no_barrier_repair_inside_a_construct_or_branch() -> None:
    src = """
    int f(int k) {
      int x = 0, y = 0;
      #pragma omp parallel
      {
        #pragma omp master
        x = 1;
        if (k > 0) {
          y = x;
        }
      }
      return y;
    }
    """
    items = [f for f in check_file(textwrap.dedent(src), "t.c") if f.code in NEW]
    assert items
    assert all(f.insert is None for f in items)
