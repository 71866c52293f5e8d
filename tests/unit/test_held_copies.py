"""Host loops on data the user's directives hold on the device: offloaded only when
the device copy is provably the host's and what the loop writes comes back."""

from __future__ import annotations

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.pragma import Target

ACC = Settings(dialect=Dialect.OPENACC, validate=False)
OMP_GPU = Settings(dialect=Dialect.OPENMP, target=Target.GPU, validate=False)

# The user's partial port: the device copies are set by `update device` from a
# host loop, so offloading that loop would have the update overwrite its work.
PARTIAL = """\
#include <stdlib.h>
double run(int n) {
  double *u = malloc(n * sizeof *u), *f = malloc(n * sizeof *f);
  #pragma acc enter data create(u[0:n], f[0:n])
  for (int i = 0; i < n; i++) { u[i] = i; f[i] = 1.0; }
  #pragma acc update device(u[0:n], f[0:n])
  #pragma acc parallel loop present(u[0:n], f[0:n])
  for (int i = 0; i < n; i++) f[i] = f[i] + u[i];
  #pragma acc update self(f[0:n])
  double s = f[n - 1];
  #pragma acc exit data delete(u[0:n], f[0:n])
  free(u); free(f);
  return s;
}
"""

DECLARED = """\
#define N 1000
static double u[N], f[N];
#pragma acc declare create(u, f)
void init(void) {
  for (int i = 0; i < N; i++) { u[i] = i; f[i] = 1.0; }
  #pragma acc update device(u, f)
}
"""

ENTERED = """\
void run(int n, double *restrict a, double *restrict b)
{
    #pragma acc enter data copyin(a[0:n]) create(b[0:n])
    double s = 2.0;
    for (int i = 0; i < n; i++)
        b[i] = s * a[i];
    #pragma acc exit data copyout(b[0:n]) delete(a[0:n])
}
"""

REGION = """\
void run(int n, const double *restrict a, double *restrict b)
{
#pragma acc data copyin(a[0:n]) copyout(b[0:n])
    {
        for (int i = 0; i < n; i++)
            b[i] = a[i] * 2.0;
        for (int i = 0; i < n; i++)
            b[i] = b[i] + a[n - 1 - i];
    }
}
"""


def _loops(text: str, settings: Settings = ACC) -> list[tuple[int, bool, str]]:
    found = suggest_text(text, "t.c", settings).suggestions
    return [
        (s.loop.line, s.pragma is not None, " ".join(s.reasons))
        for s in found
        if s.existing is None and not s.inner
    ]


def test_a_host_loop_whose_results_an_update_device_sends_is_refused() -> None:
    (line, offered, why), *_ = _loops(PARTIAL)
    assert (line, offered) == (5, False)
    assert "`u` is on the device from the `enter data` at line 4" in why


def test_a_declared_global_is_the_device_s_for_the_whole_program() -> None:
    [(_, offered, why)] = _loops(DECLARED)
    assert not offered
    assert "`declare` at line 3" in why


def test_an_enter_data_that_copies_in_and_an_exit_that_copies_out_hold() -> None:
    [(_, offered, _)] = _loops(ENTERED)
    assert offered
    result = suggest_text(ENTERED, "t.c", ACC).suggestions
    assert result[0].pragma is not None
    assert "present(a[0:n], b[0:n])" in result[0].pragma.render()


def test_kernels_of_one_data_region_keep_each_other_coherent() -> None:
    assert [offered for _, offered, _ in _loops(REGION)] == [True, True]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # What the loop writes never reaches the host.
        (
            "exit data copyout(b[0:n]) delete(a[0:n])",
            "exit data delete(a[0:n], b[0:n])",
        ),
        # The loop reads `b`, whose device copy `create` left unset.
        ("b[i] = s * a[i];", "b[i] = s * a[i] + b[i];"),
        # The host writes `a` after it went over.
        ("double s = 2.0;", "double s = 2.0; a[0] = 1.0;"),
        # A store through another pointer may reach `a`.
        ("double s = 2.0;", "double s = 2.0; double *q = a; q[0] = 1.0;"),
        # A call may touch it.
        ("double s = 2.0;", "double s = 2.0; touch(n);"),
    ],
)
def test_what_breaks_the_proof_refuses(change: str, words: str) -> None:
    text = "void touch(int n);\n" + ENTERED.replace(change, words)
    assert [offered for _, offered, _ in _loops(text)] == [False]


def test_a_global_held_by_another_function_is_refused() -> None:
    text = """\
#define N 64
static double g[N];
void up(void) {
  #pragma acc enter data copyin(g)
}
void scale(void) {
  for (int i = 0; i < N; i++) g[i] = 2.0 * g[i];
}
"""
    [(_, offered, why)] = _loops(text)
    assert not offered
    assert "another function" in why


def test_openmp_target_enter_data_is_a_hold_too() -> None:
    text = """\
#include <stdlib.h>
double run(int n) {
  double *u = malloc(n * sizeof *u);
  #pragma omp target enter data map(alloc: u[0:n])
  for (int i = 0; i < n; i++) u[i] = i;
  #pragma omp target update to(u[0:n])
  double s = 0.0;
  #pragma omp target exit data map(release: u[0:n])
  free(u);
  return s;
}
"""
    [(line, offered, why)] = _loops(text, OMP_GPU)
    assert (line, offered) == (5, False), why
    assert "`target enter data` at line 4" in why


def test_on_the_cpu_nothing_changes() -> None:
    cpu = Settings(dialect=Dialect.OPENMP, validate=False)
    (line, offered, _), *_ = _loops(PARTIAL, cpu)
    assert (line, offered) == (5, True)


def test_a_nest_writing_part_of_a_created_array_copied_back_is_offered() -> None:
    # The host loop's writes were lost to the copy back; offloaded they land
    # in the device copy that comes back (the shape experts write in a region).
    text = ENTERED.replace("int i = 0; i < n;", "int i = 1; i < n - 1;")
    assert [offered for _, offered, _ in _loops(text)] == [True]


def test_a_copy_back_short_of_what_the_nest_writes_refuses() -> None:
    text = ENTERED.replace("copyout(b[0:n])", "copyout(b[0:n/2]) delete(b[0:n])")
    assert [offered for _, offered, _ in _loops(text)] == [False]


def test_a_global_struct_s_member_another_function_enters_is_refused() -> None:
    text = """\
#define N 64
struct grid { double *u; } g;
void up(void) {
  #pragma acc enter data copyin(g.u[0:N])
}
void scale(void) {
  for (int i = 0; i < N; i++) g.u[i] = 2.0 * g.u[i];
}
double local(void) {
  struct grid g;
  g.u = 0;
  double s = 0.0;
  for (int i = 0; i < N; i++) s += g.u[i];
  return s;
}
"""
    assert [(line, offered) for line, offered, _ in _loops(text)] == [
        (7, False),
        (13, True),
    ]
