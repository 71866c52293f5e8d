"""Causes found by the twelfth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_MEMO = """\
    static double memo(double r) {
      static double last_r = -1.0, last_p = 0.0;
      {directive}
      if (r == last_r)
        return last_p;
      last_r = r;
      last_p = 0.4 * r * r;
      return last_p;
    }
    void run(const double *rho, double *p, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++)
        p[i] = memo(rho[i]);
    }
"""


def test_a_threadprivate_static_scalar_is_each_threads_own() -> None:
    # a block-scope `static` named by `threadprivate` in its function: no race
    tp = "#pragma omp threadprivate(last_r, last_p)"
    assert _errors(_MEMO.replace("{directive}", tp)) == []
    # without the directive the memo is one pair of scalars for every thread
    assert [c for c, _ in _errors(_MEMO.replace("{directive}", ""))] == ["ACC124"]


_TILED = """\
    #define N 256
    #define T 32
    static double a[N][N], b[N][N];
    void transpose(void) {
      #pragma omp parallel for collapse(2)
      for (int ii = 0; ii < N; ii += T)
        for (int jj = 0; jj < N; jj += T)
          for (int i = ii; i < ii + T; i++)
            for (int j = jj; j {op} jj + T && j < N; j++)
              b[j][i] = a[i][j];
    }
"""


def test_a_macro_tile_step_keeps_the_tile_in_its_rows() -> None:
    # `ii` steps by T from 0, so `i < ii + T` stops at N - 1: no overrun
    assert _errors(_TILED.replace("{op}", "<")) == []
    # an inclusive tile edge writes the first column of the next tile
    assert [c for c, _ in _errors(_TILED.replace("{op}", "<="))] == ["ACC101"]


_NAMES = """\
    static long hits;
    static void record(void) {
      #pragma omp critical
      hits++;
    }
    static void record_big(void) {
      #pragma omp critical({name})
      hits++;
    }
    void run(const double *x, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++) {
        if (x[i] > 8.0)
          record_big();
        else
          record();
      }
    }
"""


def test_callees_guarding_one_global_under_two_critical_names_race() -> None:
    # the unnamed `critical` and `critical(big)` are two locks
    assert [c for c, _ in _errors(_NAMES.replace("{name}", "big"))] == ["ACC124"]
    # one name in both helpers excludes the two updates
    assert _errors(_NAMES.replace("critical({name})", "critical")) == []


def test_a_region_calling_two_differently_guarded_callees_races() -> None:
    body = "#pragma omp parallel\n  {\n    record_big();\n    record();\n  }\n}\n"
    head = _NAMES.split("void run")[0]
    src = textwrap.dedent(head) + "void run(void) {\n  " + body
    assert [c for c, _ in _errors(src.replace("{name}", "big"))] == ["ACC124"]
    assert _errors(src.replace("critical({name})", "critical")) == []


_LATE_READ = """\
    #define NF 8192
    static double fine[NF], coarse[NF / 2];
    double restrict_and_sum(void) {
      int n = NF / 2;
      double s = 0.0;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task {clause}
        for (int i = 0; i < n; i++)
          coarse[i] = 0.5 * (fine[2 * i] + fine[2 * i + 1]);
        for (int i = 0; i < {bound}; i++)
          s += coarse[i];
      }
      return s;
    }
"""


def test_two_loops_from_one_start_meet_whenever_both_run() -> None:
    # `i < n` against `i < m`: both reach `coarse[0]` once each runs at all
    src = _LATE_READ.replace("{bound}", "m").replace("{clause}", "")
    src = src.replace("double s = 0.0;", "double s = 0.0;\n      int m = n / 2;")
    assert ("ACC122", 14) in _errors(src)


def test_two_loops_over_one_symbolic_range_meet_at_every_index() -> None:
    # both loops sweep `0 <= i < n`: the task's `coarse[i]` is the reader's
    src = _LATE_READ.replace("{bound}", "n").replace("{clause}", "")
    assert ("ACC122", 13) in _errors(src)
    deferred = _LATE_READ.replace("{bound}", "n").replace("{clause}", "if (n > 16)")
    assert ("ACC122", 13) in _errors(deferred)
    # an undeferred task has finished when its creator reads on
    assert _errors(deferred.replace("if (n > 16)", "if (0)")) == []


def test_loops_over_different_symbolic_ranges_stay_a_doubt() -> None:
    # `i < n` against `m <= i < 2 * m`: whether the ranges meet is the values' to say
    src = _LATE_READ.replace("{bound}", "2 * m").replace("{clause}", "")
    src = src.replace("int i = 0; i < 2 * m", "int i = m; i < 2 * m")
    src = src.replace("double s = 0.0;", "double s = 0.0;\n      int m = n / 2;")
    assert _errors(src) == []
    assert "ACC123" in {f.code for f in check_file(textwrap.dedent(src), "t.c")}


_TASK_KERNEL = """\
    #define N 1024
    static double a[N], b[N];
    static void fill(double *x, int n) {
      for (int i = 0; i < n; i++)
        x[i] = 0.5 * i;
    }
    static double total(const double *x, int n) {
      double s = 0.0;
      for (int i = 0; i < n; i++)
        s += x[i];
      return s;
    }
    double run(void) {
      int n = N;
      double s = 0.0, t = 0.0;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task {clause}
        fill({array}, n);
        {later}
      }
      return s + t;
    }
"""


def _task_kernel(clause: str, array: str, later: str) -> str:
    src = _TASK_KERNEL.replace("{clause}", clause).replace("{array}", array)
    return src.replace("{later}", later)


def test_a_tasks_callee_loop_writes_the_callers_array_at_the_call() -> None:
    # `fill(a, n)` writes `a[0..n-1]`: the creator's loop over `n` reads them
    read = "for (int i = 0; i < n; i++)\n      s += a[i];"
    assert ("ACC124", 20) in _errors(_task_kernel("", "a", read))
    # a sibling task reading `a` through a callee, with no `depend`, races too
    sibling = "#pragma omp task shared(t)\n    t = total(a, n);"
    assert ("ACC124", 20) in _errors(_task_kernel("", "a", sibling))


def test_a_tasks_callee_loop_is_ordered_like_the_task() -> None:
    read = "#pragma omp taskwait\n    for (int i = 0; i < n; i++)\n      s += a[i];"
    assert _errors(_task_kernel("", "a", read)) == []
    sibling = "#pragma omp task depend(in : a) shared(t)\n    t = total(a, n);"
    assert _errors(_task_kernel("depend(out : a)", "a", sibling)) == []
    # another array, or a buffer of the task's own
    other = "#pragma omp task shared(t)\n    t = total(b, n);"
    assert _errors(_task_kernel("", "a", other)) == []
    own = "{\n    double w[N];\n    fill(w, n);\n    b[0] = total(w, n);\n    }"
    src = _task_kernel("", "b", "").replace("fill(b, n);", own)
    assert _errors(src) == []


_RECORD = """\
    #include <stdlib.h>
    typedef struct { double *raw; int n; } stage_t;
    static void produce(stage_t *s) {
      for (int i = 0; i < s->n; i++)
        s->raw[i] = 0.5 * i;
    }
    static void consume(stage_t *s, double *out) {
      for (int i = 0; i < s->n; i++)
        out[i] = 2.0 * s->raw[i];
    }
    void run(double *out, int n) {
      stage_t s;
      s.n = n;
      s.raw = calloc((size_t)n, sizeof(double));
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task shared(s)
        produce(&s);
        {wait}
        #pragma omp task shared(s)
        consume(&s, out);
      }
      free(s.raw);
    }
"""


def test_callees_reach_the_callers_record_through_its_address() -> None:
    # `produce(&s)` writes `s.raw[i]`, `consume(&s, out)` reads it: unordered
    src = _RECORD.replace("{wait}", "")
    assert ("ACC124", 19) in _errors(src)
    assert _errors(_RECORD.replace("{wait}", "#pragma omp taskwait")) == []


_BLOCKS = """\
    #define NB 8
    #define BS 64
    static double grid[NB * BS];
    static void fill_half(double *blk, int lo, int hi) {
      for (int i = lo; i < hi; i++)
        blk[i] = 0.25 * i;
    }
    static void fill_block(int b) {
      double *blk = {start};
      #pragma omp task firstprivate(blk)
      fill_half(blk, 0, BS / 2);
      #pragma omp task firstprivate(blk)
      fill_half(blk, BS / 2, BS);
    }
    double run(void) {
      double total = 0.0;
      #pragma omp parallel
      #pragma omp single
      {
        for (int b = 0; b < NB; b++) {
          #pragma omp task firstprivate(b)
          fill_block(b);
        }
        #pragma omp taskwait
        for (int i = 0; i < NB * BS; i++)
          total += grid[i];
      }
      return total;
    }
"""


def test_a_grandchild_writing_through_a_pointer_into_a_global_races() -> None:
    # `blk` is only ever set from `grid`: the grandchildren write into `grid`,
    # which the `taskwait` (children only) does not wait for
    src = _BLOCKS.replace("{start}", "grid + b * BS")
    assert [c for c, _ in _errors(src)] == ["ACC124"]
    assert [c for c, _ in _errors(src.replace("{start}", "&grid[b * BS]"))] == [
        "ACC124"
    ]
    # a `taskgroup` waits for every descendant
    group = "#pragma omp taskgroup\n    {\n    for (int b = 0; b < NB; b++) {"
    grouped = src.replace("for (int b = 0; b < NB; b++) {", group, 1).replace(
        "fill_block(b);\n        }", "fill_block(b);\n        }\n        }"
    )
    assert _errors(grouped.replace("#pragma omp taskwait", "")) == []
