"""Remaining misses of the ninth blind batch: general causes, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_SCRATCH = """\
    #define N 400
    #define NT 4
    #define W 32
    double scratch[NT][W], out[N];
    void f(void) {
    #pragma omp parallel for schedule(dynamic) num_threads(NT)
      for (int i = 0; i < N; i++) {
        for (int k = 0; k < W; k++)
          scratch[{row}][k] = i + k;
        out[i] = scratch[{row}][0];
      }
    }
"""


def test_a_row_picked_by_a_macro_remainder_is_shared_by_iterations() -> None:
    # `i % NT` with `#define NT 4`: iterations i and i + 4 write one row.
    src = _SCRATCH.replace("{row}", "i % NT")
    assert ("ACC101", 9) in _errors(src)


def test_a_row_picked_by_the_thread_number_is_not_a_sure_race() -> None:
    src = _SCRATCH.replace("{row}", "omp_get_thread_num()")
    assert _errors("#include <omp.h>\n" + src) == []


_CURSOR = """\
    #include <stdio.h>
    void f(double *a) {
      double *q = a;
    #pragma omp parallel num_threads(4)
    #pragma omp single
      {
    #pragma omp task shared(q)
        printf("%f\\n", {read});
        {after}
        q = a + 1;
      }
    }
"""


def _cursor(read: str, after: str = "") -> str:
    return _CURSOR.replace("{read}", read).replace("{after}", after)


def test_a_task_reading_through_a_shared_pointer_reads_the_pointer() -> None:
    # `*q` and `q[0]` read `q`, which the creating thread writes at line 10
    assert ("ACC122", 10) in _errors(_cursor("*q"))


def test_a_pointer_read_before_the_task_is_waited_for_is_not_a_race() -> None:
    assert _errors(_cursor("*q", "#pragma omp taskwait")) == []


_SOA = """\
    #define N 100
    struct soa { double *x; double *y; };
    static void step(struct soa *s, int i) {
      {body}
    }
    void run(struct soa s) {
    #pragma omp parallel for
      for (int i = 0; i < N; i++)
        step(&s, i);
    }
"""


def _soa(body: str) -> list[tuple[str, int]]:
    return _errors(_SOA.replace("{body}", body))


def test_a_callee_reaching_the_next_element_of_a_member_array_races() -> None:
    assert _soa("s->x[i] = s->x[i + 1] + s->y[i];") == [("ACC124", 9)]
    assert _soa("s->x[i / 2] = s->y[i];") == [("ACC124", 9)]


def test_a_callee_keeping_to_its_own_element_of_each_member_does_not_race() -> None:
    assert _soa("s->x[i] = s->x[i] + s->y[i + 1];") == []


def test_a_member_access_that_may_not_run_is_not_a_sure_race() -> None:
    assert _soa("if (i > 3) s->x[i] = s->x[i + 1];") == []
    # the member is assigned: which array it names is another question (ACC103)
    moved = _soa("s->x = s->y; s->x[i] = s->x[i + 1];")
    assert not any(code == "ACC124" for code, _ in moved)


def test_a_simd_loop_of_such_calls_runs_on_one_thread() -> None:
    simd = _SOA.replace("parallel for", "simd").replace(
        "{body}", "s->x[i] = s->x[i + 1];"
    )
    assert _errors(simd) == []
