"""Tasks a called function creates and leaves running: followed to the caller."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(c, line) for c, line, level in _found(src) if level == "ERROR"]


_RECURSIVE = """\
    #define N 16
    static int cells[N];
    static void fill(int lo, int hi) {
      if (hi - lo <= 2) {
        for (int i = lo; i < hi; i++)
          cells[i] = i;
        return;
      }
      int mid = (lo + hi) / 2;
      #pragma omp task
      fill(lo, mid);
      #pragma omp task
      fill(mid, hi);{wait}
    }
    long run(void) {
      long total = 0;
      #pragma omp parallel
      #pragma omp single
      {
        {call}
        for (int i = 0; i < N; i++)
          total += cells[{read}];
      }
      return total;
    }
"""


def _recursive(call: str, wait: str = "", read: str = "i") -> str:
    return (
        _RECURSIVE.replace("{call}", call)
        .replace("{wait}", wait)
        .replace("{read}", read)
    )


_IN_TASK = "#pragma omp task\n        fill(0, N);\n        #pragma omp taskwait"
_DIRECT = "fill(0, N);\n        #pragma omp taskwait"
_GROUP = "#pragma omp taskgroup\n        {\n          fill(0, N);\n        }"


def test_grandchildren_of_a_task_outlive_the_taskwait() -> None:
    assert ("ACC124", 21) in _errors(_recursive(_IN_TASK))


def test_grandchildren_of_a_direct_call_outlive_the_taskwait() -> None:
    # the callee's own tasks are children, waited; the tasks they make are not
    assert ("ACC124", 20) in _errors(_recursive(_DIRECT))


def test_race_names_the_callee_write_and_the_read() -> None:
    found = check_file(textwrap.dedent(_recursive(_IN_TASK)), "t.c")
    race = next(f for f in found if f.code == "ACC124")
    lines = {v for k, v in race.args if k in ("write", "other")}
    assert lines == {"6", "24"}
    assert "taskgroup" in race.message


def test_taskgroup_waits_for_every_descendant() -> None:
    assert _errors(_recursive(_GROUP)) == []


def test_callee_that_waits_at_every_level_is_clean() -> None:
    wait = "\n  #pragma omp taskwait"
    assert _errors(_recursive(_IN_TASK, wait)) == []
    assert _errors(_recursive(_DIRECT, wait)) == []


def test_one_element_read_is_only_possible() -> None:
    # which elements the callee's tasks write is not followed: `cells[0]` may be one
    found = _found(_recursive(_IN_TASK, read="0"))
    assert [x for x in found if x[2] == "ERROR"] == []
    assert any(code == "ACC123" for code, _, _ in found)


_ONE_LEVEL = """\
    int out[8];
    static void put(int k) {
      #pragma omp task
      out[k] = k;
    }
    int run(void) {
      int s = 0;
      #pragma omp parallel
      #pragma omp single
      {
        {call}
        #pragma omp taskwait
        for (int i = 0; i < 8; i++)
          s += out[i];
      }
      return s;
    }
"""


def test_callee_child_is_waited_by_the_callers_taskwait() -> None:
    assert _errors(_ONE_LEVEL.replace("{call}", "put(3);")) == []


def test_callee_child_made_in_a_task_is_a_grandchild() -> None:
    call = "#pragma omp task\n        put(3);"
    assert ("ACC124", 12) in _errors(_ONE_LEVEL.replace("{call}", call))


def test_callee_task_not_waited_before_the_read() -> None:
    src = """\
        int g;
        static void bump(void) {
          #pragma omp task
          g = 1;
        }
        int run(void) {
          int r = 0;
          #pragma omp parallel
          #pragma omp single
          {
            bump();
            r = g;
          }
          return r;
        }
    """
    found = check_file(textwrap.dedent(src), "t.c")
    race = next(f for f in found if f.code == "ACC124")
    assert race.span.line == 11
    assert "which the code at line 11 calls" in race.message
    assert _errors(src.replace("r = g;", "#pragma omp taskwait\n    r = g;")) == []


_THROUGH = """\
    #define N 16
    static void fill(int *a, int lo, int hi) {
      if (hi - lo <= 2) {
        for (int i = lo; i < hi; i++)
          a[i] = i;
        return;
      }
      int mid = (lo + hi) / 2;
      #pragma omp task
      fill(a, lo, mid);
      #pragma omp task
      fill(a, mid, hi);
    }
    long run(void) {
      int cells[N];
      long total = 0;
      #pragma omp parallel
      #pragma omp single
      {
        {call}
        for (int i = 0; i < N; i++)
          total += cells[i];
      }
      return total;
    }
"""


def test_writes_through_a_pointer_parameter_are_the_arguments() -> None:
    call = "#pragma omp task\n        fill(cells, 0, N);\n        #pragma omp taskwait"
    found = check_file(textwrap.dedent(_THROUGH.replace("{call}", call)), "t.c")
    race = next(f for f in found if f.code == "ACC124")
    assert (race.span.line, dict(race.args)["var"]) == (21, "cells")
    assert "written through a pointer argument" in race.message
    group = "#pragma omp taskgroup\n        fill(cells, 0, N);"
    assert _errors(_THROUGH.replace("{call}", group)) == []


_ELEMENT = """\
    #define N 1000
    double a[N];
    void work(int i) {
      #pragma omp task CLAUSE
      a[WRITE] += 1.0;
      a[i] *= 2.0;
    }
    int main(void) {
      #pragma omp parallel for
      for (int i = 0; i < N; i++) work(i);
      return 0;
    }
"""


def _element(clause: str, write: str) -> str:
    return _ELEMENT.replace("CLAUSE", clause).replace("WRITE", write)


def test_a_callee_task_writing_one_element_for_every_iteration_races() -> None:
    """The undeferred task runs on each caller's thread: `a[0]` from every one."""
    assert ("ACC124", 10) in _errors(_element("if(0)", "0"))
    assert ("ACC124", 10) in _errors(_element("shared(a)", "0"))


def test_a_callee_undeferred_task_on_its_own_element_is_no_race() -> None:
    """`if(0)`: the task is done before `a[i] *= 2.0`, on the same thread."""
    assert _errors(_element("if(0)", "i")) == []
    assert not [f for f in _found(_element("if(0)", "i")) if f[2] == "WARNING"]
