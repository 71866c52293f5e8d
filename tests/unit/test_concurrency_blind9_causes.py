"""Causes found by the ninth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(code, line) for code, line, level in _found(src) if level == "ERROR"]


_ADDRESS = """\
    struct pair { double *x; double *y; };
    static void step(struct pair *p, int i) { {body} }
    void run(double *x, double *y, int n) {
      struct pair s = {x, y};
      #pragma omp parallel for
      for (int i = 0; i < n; i++)
        step(&s, i);
    }
"""


def test_a_structure_whose_address_a_call_gets_is_not_proved_written() -> None:
    # `step` writes through the structure's pointer members, never the structure:
    # `&s` handed to it proves no write of `s`; a doubt at most.
    src = _ADDRESS.replace("{body}", "p->x[i] = p->x[i] + p->y[i + 1];")
    assert _errors(src) == []
    assert ("ACC103", 7, "WARNING") in _found(src)
    found = check_file(textwrap.dedent(src), "t.c")
    assert any("only its address is handed to a call" in f.message for f in found)


def test_a_callee_writing_through_the_address_is_still_a_race() -> None:
    src = _ADDRESS.replace("{body}", "p->x = p->y + i;")
    assert ("ACC103", 7) in _errors(src)


def test_a_callee_writing_an_array_member_writes_the_structure() -> None:
    src = _ADDRESS.replace("double *x; double *y;", "double x[8]; double *y;")
    src = src.replace("{body}", "p->x[i % 8] = p->y[i];")
    src = src.replace("struct pair s = {x, y};", "struct pair s = {{0}, y};")
    assert ("ACC103", 7) in _errors(src)


_MEMBER = """\
    struct stats { long hits; long seen; };
    struct stats st;
    static void count(void) { {update} }
    void run(double *v, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++) {
        v[i] = 1.0;
        count();
      }
    }
"""


def test_a_callee_updating_a_global_structure_member_races() -> None:
    found = check_file(
        textwrap.dedent(_MEMBER.replace("{update}", "st.hits++;")), "t.c"
    )
    errors = [f for f in found if f.level.name == "ERROR"]
    assert [(f.code, f.span.line) for f in errors] == [("ACC124", 8)]
    assert "make `st` `threadprivate`" in errors[0].message


def test_a_callee_updating_a_global_member_atomically_does_not_race() -> None:
    src = _MEMBER.replace("{update}", "\n#pragma omp atomic\n st.hits++;\n")
    assert _errors(src) == []


_HALF = """\
    #define NF 64
    void restrict2(double *coarse, const double *fine) {
      #pragma omp parallel for
      for (int i = 0; i < NF; i++)
        {update}
    }
"""


def test_an_update_of_half_the_index_meets_one_element_twice() -> None:
    src = _HALF.replace("{update}", "coarse[i / 2] += 0.5 * fine[i];")
    assert ("ACC101", 5) in _errors(src)


def test_a_division_that_may_not_repeat_stays_a_doubt() -> None:
    # a branch may skip the update; `i / 1` is `i`; a step of 2 keeps `i / 2` apart
    guarded = "if (fine[i] > 0) coarse[i / 2] += fine[i];"
    assert _errors(_HALF.replace("{update}", guarded)) == []
    assert _errors(_HALF.replace("{update}", "coarse[i / 1] += fine[i];")) == []
    stepped = _HALF.replace("i++", "i += 2")
    assert _errors(stepped.replace("{update}", "coarse[i / 2] += fine[i];")) == []


_SCALE = """\
    #include <omp.h>
    #define N 100
    double g[N];
    static void scale(double s) {
      {pragma}
      for (int i = 0; i < N; i++) {
        {skip}
        g[i] = g[i] * s;
      }
    }
    void run(void) {
      #pragma omp parallel
      scale(0.5);
    }
"""


def _scale(pragma: str = "", skip: str = "") -> str:
    return _SCALE.replace("{pragma}", pragma).replace("{skip}", skip)


def test_a_callee_loop_of_known_range_run_by_every_thread_races() -> None:
    # Every thread's call runs the whole loop: all write `g[0]` first.
    assert ("ACC124", 13) in _errors(_scale())


def test_a_callee_loop_shared_or_skipped_by_thread_is_not_proved() -> None:
    assert _errors(_scale("#pragma omp for")) == []
    skip = "if (i % omp_get_num_threads() != omp_get_thread_num()) continue;"
    assert _errors(_scale(skip=skip)) == []


_UNBRACED = """\
    void f(int n, int m, const double *a, double *b) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++)
        if (a[i] > 0)
          #pragma omp simd
          for (int k = 0; k < m; k++)
            b[k] += a[i];
    }
"""


def test_a_loop_under_a_pragma_under_its_unbraced_if_is_read_whole() -> None:
    # The `simd` pragma is the `if`'s body with its loop (unbraced_pragmas):
    # the racy `b[k] +=` lies in the parallel loop, as with braces.
    assert ("ACC101", 7) in _errors(_UNBRACED)
    assert not any(code == "ACC128" for code, _, _ in _found(_UNBRACED))
    braced = _UNBRACED.replace("i++)\n", "i++) {\n").replace("a[i];\n", "a[i];\n}\n")
    assert ("ACC101", 7) in _errors(braced)
    assert not any(code == "ACC128" for code, _, _ in _found(braced))


_SWEEP = """\
    #define N 66
    double u[N][N];
    void sweep(int color) {
      #pragma omp parallel for
      for (int i = 1; i < N - 1; i++)
        for (int j = {start}; j < N - 2; j += 2)
          u[i][j] = u[i - 1][{read}];
    }
"""


def _sweep(start: str, read: str) -> str:
    return _SWEEP.replace("{start}", start).replace("{read}", read)


def test_a_stride_two_column_loop_of_one_start_reads_the_row_above_racily() -> None:
    # Every `i` visits the same columns: `u[i - 1][j]` is row i - 1's write.
    assert ("ACC101", 7) in _errors(_sweep("1 + color", "j"))


def test_a_checkerboard_or_other_parity_stays_apart() -> None:
    # a start tied to `i` moves the parity with the row; `j + 1` is the other one
    assert _errors(_sweep("1 + (i + color) % 2", "j")) == []
    assert _errors(_sweep("1 + color", "j + 1")) == []


_FRAME = """\
    double out[16];
    static void launch(int k) {
      double f = 1.5 * k;
      {open}
      #pragma omp task shared(f){clause}
      out[k] = f * 2.0;
      {close}
    }
    void run(void) {
      #pragma omp parallel
      #pragma omp single
      for (int k = 0; k < 16; k++)
        launch(k);
    }
"""


def _frame(open_: str = "", close: str = "", clause: str = "") -> str:
    src = _FRAME.replace("{open}", open_).replace("{close}", close)
    return src.replace("{clause}", clause)


def test_a_task_sharing_a_local_of_a_function_that_returns_races() -> None:
    assert ("ACC122", 6) in _errors(_frame())


def test_a_task_waited_for_in_the_locals_block_does_not_race() -> None:
    assert _errors(_frame(close="#pragma omp taskwait")) == []
    taskgroup = _frame(open_="#pragma omp taskgroup\n  {", close="}")
    assert _errors(taskgroup) == []
    assert _errors(_frame(clause=" if(0)")) == []


def test_a_local_outside_the_region_the_task_is_made_in_outlives_it() -> None:
    src = """\
    double out[16];
    void run(void) {
      double f = 1.5;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task shared(f)
        out[0] = f;
      }
    }
    """
    assert _errors(src) == []


def test_a_local_declared_in_the_taskgroup_that_waits_is_not_called_racy() -> None:
    src = _frame(open_="#pragma omp taskgroup\n  {\n double g = f;", close="}")
    src = src.replace("shared(f)", "shared(g)").replace("out[k] = f", "out[k] = g")
    assert _errors(src) == []
