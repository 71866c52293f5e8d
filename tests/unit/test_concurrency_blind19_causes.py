"""Causes found by the nineteenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(code, line) for code, line, level in _found(src) if level == "ERROR"]


_CLAMP = """\
    #include <omp.h>
    void norm(double *part, const double *x, int n, int slots) {
      #pragma omp parallel
      {
        int tid = omp_get_thread_num();
        {clamp}
        #pragma omp for
        for (int i = 0; i < n; i++)
          part[tid] += x[i] * x[i];
      }
    }
"""


def test_a_thread_number_clamped_to_the_last_slot_is_shared() -> None:
    # threads past `slots - 1` all add into the last slot
    clamped = _CLAMP.replace("{clamp}", "if (tid >= slots) tid = slots - 1;")
    assert ("ACC101", 9) in _errors(clamped)


def test_a_thread_number_set_once_is_the_threads_own_slot() -> None:
    assert _errors(_CLAMP.replace("{clamp}", "")) == []


def test_two_regions_may_each_set_their_own_thread_number() -> None:
    two = """\
        #include <omp.h>
        void norms(double *p, double *q, const double *x, int n) {
          #pragma omp parallel
          {
            int tid = omp_get_thread_num();
            #pragma omp for
            for (int i = 0; i < n; i++)
              p[tid] += x[i];
          }
          #pragma omp parallel
          {
            int tid = omp_get_thread_num();
            #pragma omp for
            for (int i = 0; i < n; i++)
              q[tid] += x[i] * x[i];
          }
        }
    """
    assert _errors(two) == []


_SCOPE = """\
    void energy(const double *e, int n, double *mean) {
      double total = 0.0;
      #pragma omp parallel
      {
        #pragma omp scope reduction(+ : total){nowait}
        {
          #pragma omp for nowait
          for (int i = 0; i < n; i++)
            total += e[i];
        }
        #pragma omp masked
        *mean = total / n;
      }
    }
"""


def test_a_scope_reduction_without_barrier_is_read_early() -> None:
    # the masked thread reads `total` while others still combine their copies
    assert ("ACC120", 12) in _errors(_SCOPE.replace("{nowait}", " nowait"))


def test_a_scope_reduction_ends_with_a_barrier() -> None:
    assert _errors(_SCOPE.replace("{nowait}", "")) == []


def test_a_scope_private_copy_is_each_threads_own() -> None:
    private = """\
        void spread(double *out, const double *x, int n) {
          double t = 0.0;
          #pragma omp parallel
          {
            #pragma omp scope private(t)
            {
              #pragma omp for
              for (int i = 0; i < n; i++) {
                t = 2.0 * x[i];
                out[i] = t;
              }
            }
          }
        }
    """
    assert _errors(private) == []


_TASKS = """\
    #include <stdlib.h>
    void blur(double *img, int rows, int cols) {
      double *line = malloc((size_t)cols * sizeof *line);
      #pragma omp parallel
      #pragma omp single
      for (int r = 0; r < rows; r++) {
        {setup}
        #pragma omp task firstprivate({copied})
        for (int c = 0; c < cols; c++)
          {target}[c] = img[r * cols + c];
      }
      free(line);
    }
"""


def test_a_tasks_firstprivate_pointer_still_points_at_one_line() -> None:
    # `firstprivate(line)` copies the address: every task fills the same line
    shared = (
        _TASKS.replace("{setup}", "")
        .replace("{copied}", "line")
        .replace("{target}", "line")
    )
    assert ("ACC122", 10) in _errors(shared)


def test_a_tasks_firstprivate_row_pointer_set_per_task_is_its_own() -> None:
    own = (
        _TASKS.replace("{setup}", "double *row = line + (size_t)r * cols;")
        .replace("{copied}", "row")
        .replace("{target}", "row")
    )
    rows = own.replace("malloc((size_t)cols", "malloc((size_t)rows * cols")
    assert _errors(rows) == []


_IN_PLACE = """\
    #include <stdlib.h>
    #define N 1000
    static void smooth(double *out, const double *in, int n) {
      #pragma omp parallel for
      for (int i = 1; i < n - 1; i++)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
    }
    void run(void) {
      double *u = malloc(N * sizeof *u);
      double *v = malloc(N * sizeof *v);
      smooth({args}, N);
      free(u);
      free(v);
    }
"""


def test_one_pointer_passed_as_output_and_input_overlaps() -> None:
    # `u` is malloc'd, not an array: both arguments still hold its one address
    assert ("ACC101", 6) in _errors(_IN_PLACE.replace("{args}", "u, u"))


def test_two_pointers_passed_as_output_and_input_do_not_overlap() -> None:
    assert _errors(_IN_PLACE.replace("{args}", "v, u")) == []


_SINGLE = """\
    #include <stdlib.h>
    void blur(double *img, int rows, int cols) {
      #pragma omp parallel
      #pragma omp single
      {
        {outer}
        for (int r = 0; r < rows; r++) {
          #pragma omp task
          {
            {inner}
            for (int c = 0; c < cols; c++)
              line[c] = img[r * cols + c];
            img[r * cols] = line[cols - 1];
          }
        }
      }
    }
"""
_LINE = "double *line = malloc((size_t)cols * sizeof *line);"


def test_a_pointer_of_the_single_is_copied_into_every_task() -> None:
    # implicitly firstprivate in the task: each instance copies the one address
    shared = _SINGLE.replace("{outer}", _LINE).replace("{inner}", "")
    assert ("ACC122", 12) in _errors(shared)


def test_a_pointer_each_task_allocates_is_its_own() -> None:
    own = _SINGLE.replace("{outer}", "").replace("{inner}", _LINE)
    assert _errors(own) == []
