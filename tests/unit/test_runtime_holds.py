"""Loops on arrays the OpenACC/OpenMP runtime's data routines may hold on the device:
their data clauses would move nothing, so they are not offloaded."""

from __future__ import annotations

from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.pragma import Target

ACC = Settings(dialect=Dialect.OPENACC, validate=False)
OMP_GPU = Settings(dialect=Dialect.OPENMP, target=Target.GPU, validate=False)

# `acc_copyin` makes `a` present: `copyout(a[0:n])` would then leave the host's
# `a` unwritten, and the host loop after it would read stale values.
COPIED_IN = """\
#include <stdio.h>
#include <openacc.h>
void step(int n, double *restrict a, const double *restrict b) {
  acc_copyin(a, n * sizeof(double));
  for (int i = 0; i < n; i++) a[i] = 2.0 * b[i];
  for (int i = 0; i < n; i++) if (a[i] > 5.0) { printf("%d\\n", i); break; }
  acc_delete(a, n * sizeof(double));
}
"""

# The runtime holds a global in one function; a loop of another function uses
# it under a parameter's name: that loop cannot tell what is held.
ELSEWHERE = """\
#include <openacc.h>
double g[1000];
void hold(void) { acc_create(g, sizeof g); }
void scale(int n, double *restrict p) {
  for (int i = 0; i < n; i++) p[i] = 3.0 * p[i];
}
"""

# The loop function's own arrays, which no runtime call names: no other name
# reaches them, so nothing can hold them.
OWN = """\
#include <stdlib.h>
#include <openacc.h>
void step(int n, double *restrict b) {
  double *a = malloc(n * sizeof(double));
  acc_copyin(b, n * sizeof(double));
  for (int i = 0; i < n; i++) a[i] = 2.0 * i;
  free(a);
  acc_delete(b, n * sizeof(double));
}
"""

ASSOCIATED = """\
#include <omp.h>
void step(int n, double *restrict a, void *d) {
  omp_target_associate_ptr(a, d, n * sizeof(double), 0, omp_get_default_device());
  for (int i = 0; i < n; i++) a[i] = 2.0 * i;
}
"""


def _pragmas(text: str, settings: Settings) -> dict[int, str | None]:
    found = suggest_text(text, "t.c", settings).suggestions
    return {
        s.loop.line: None if s.pragma is None else s.pragma.render()
        for s in found
        if s.existing is None and not s.inner
    }


def _reasons(text: str, settings: Settings, line: int) -> str:
    found = suggest_text(text, "t.c", settings).suggestions
    return " ".join(r for s in found if s.loop.line == line for r in s.reasons)


def test_array_the_runtime_copies_in_is_not_offloaded() -> None:
    assert _pragmas(COPIED_IN, ACC)[5] is None
    why = _reasons(COPIED_IN, ACC, 5)
    # Read as `enter data copyin(a[0:n])`: the host loop after it reads `a`
    # before the `acc_delete`, which never copies the loop's values back.
    assert "`a` is on the device from the `acc_copyin()` at line 4" in why


def test_a_parameter_may_be_what_another_function_holds() -> None:
    assert _pragmas(ELSEWHERE, ACC)[5] is None
    assert "`p` may be held" in _reasons(ELSEWHERE, ACC, 5)


def test_the_functions_own_fresh_array_is_still_offloaded() -> None:
    pragma = _pragmas(OWN, ACC)[6]
    assert pragma is not None
    assert "copyout(a[0:n])" in pragma


def test_openmp_associated_pointer_is_not_offloaded() -> None:
    assert _pragmas(ASSOCIATED, OMP_GPU)[4] is None
    assert "omp_target_associate_ptr()" in _reasons(ASSOCIATED, OMP_GPU, 4)


def test_without_runtime_data_calls_the_parameter_is_offloaded() -> None:
    text = ELSEWHERE.replace("void hold(void) { acc_create(g, sizeof g); }\n", "")
    assert _pragmas(text, ACC)[4] is not None


def test_the_reason_names_the_call_of_the_loops_own_function() -> None:
    text = ELSEWHERE + (
        "void again(int n, double *restrict g2) {\n"
        "  acc_copyin(g2, n * sizeof(double));\n"
        "  for (int i = 0; i < n; i++) g2[i] = 1.0;\n"
        "}\n"
    )
    assert "`acc_copyin()` at line 8" in _reasons(text, ACC, 9)
