"""Causes found by the eleventh blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_CHAIN = """\
    static long count(void) {
      static long calls = 0;
      {update}
      return calls;
    }
    static void kernel(double *q, int i) {
      q[i] = 2.0 * q[i];
      {call}
    }
    void run(double *q, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++)
        kernel(q, i);
    }
"""


def _chain(update: str, call: str) -> str:
    return _CHAIN.replace("{update}", update).replace("{call}", call)


def test_a_static_counter_two_calls_down_is_a_race() -> None:
    # the loop calls `kernel`, which leaves the update of the counter to `count`
    assert ("ACC124", 13) in _errors(_chain("calls++;", "(void)count();"))
    # the same chain under `critical`, or with `atomic capture`, is no race
    guarded = "#pragma omp critical\n  (void)count();"
    assert _errors(_chain("calls++;", guarded)) == []
    capture = "long now;\n#pragma omp atomic capture\n  now = ++calls;\n(void)now;"
    src = _chain(capture, "(void)count();").replace("return calls;", "return 0;")
    assert _errors(src) == []


def test_a_global_written_three_calls_down_is_a_race() -> None:
    src = _chain("calls++;", "(void)relay();").replace(
        "static void kernel",
        "static long relay(void) { return count(); }\nstatic void kernel",
    )
    src = src.replace("static long calls = 0;", "").replace(
        "static long count", "static long calls;\nstatic long count"
    )
    assert [code for code, _ in _errors(src)] == ["ACC124"]


_MEMBER = """\
    typedef struct { double *u; double *w; double dt; int n; } field_t;
    static void set_edge(field_t *p, int s) {
      p->u[0] = 1.0 + s;
      p->dt = 0.5 / (1.0 + s);
    }
    void run(field_t *f) {
      #pragma omp parallel
      for (int s = 0; s < 8; s++) {
        {sync}
        set_edge(f, s);
        {after}
        #pragma omp for
        for (int i = 1; i < f->n - 1; i++)
          f->w[i] = f->dt * (f->u[i - 1] + f->u[i + 1]);
      }
    }
"""


def _member(sync: str, after: str = "") -> str:
    return _MEMBER.replace("{sync}", sync).replace("{after}", after)


def test_a_callee_member_write_in_single_nowait_races_with_the_next_loop() -> None:
    errors = _errors(_member("#pragma omp single nowait"))
    assert ("ACC124", 10) in errors
    assert _errors(_member("#pragma omp single")) == []  # its barrier orders them


def test_a_callee_member_write_in_master_races_without_a_barrier() -> None:
    found = check_file(textwrap.dedent(_member("#pragma omp master")), "t.c")
    races = [f for f in found if f.code == "ACC124" and f.level.name == "ERROR"]
    assert races
    assert all("a member of an object the caller shares" in f.message for f in races)
    assert all("threadprivate" not in f.message for f in races)
    assert _errors(_member("#pragma omp master", "#pragma omp barrier")) == []


_SCRATCH = """\
    #include <omp.h>
    #define M 96
    static double scratch[16][M];
    void process(const double *rows, double *sums, int n) {
      #pragma omp parallel
      {
        {decl}
        #pragma omp for
        for (int r = 0; r < n; r++) {
          for (int k = 0; k < M; k++)
            tmp[k] = rows[r * M + k];
          double s = 0.0;
          for (int k = 0; k < M; k++)
            s += tmp[k];
          sums[r] = s;
        }
      }
    }
"""


def test_a_region_pointer_to_one_shared_row_is_written_by_every_thread() -> None:
    # `tmp` is each thread's own, but every copy holds `scratch[0]`
    src = _SCRATCH.replace("{decl}", "double *tmp = scratch[0];")
    assert ("ACC101", 11) in _errors(src)
    # a row a thread: `scratch[tid]`, `scratch[omp_get_thread_num()]`
    mine = "int tid = omp_get_thread_num();\n double *tmp = scratch[tid];"
    assert _errors(_SCRATCH.replace("{decl}", mine)) == []
    call = "double *tmp = scratch[omp_get_thread_num() % 16];"
    assert _errors(_SCRATCH.replace("{decl}", call)) == []
