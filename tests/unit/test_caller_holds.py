"""A kernel function's loop on a pointer parameter whose caller holds the array on
the device around the call: offloaded only where the caller's hold is proved
coherent, as a hold around the loop itself would be."""

from __future__ import annotations

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.pragma import Target

ACC = Settings(dialect=Dialect.OPENACC, validate=False)
OMP_GPU = Settings(dialect=Dialect.OPENMP, target=Target.GPU, validate=False)

CALLER = """\
#include <stdlib.h>
void kernel(double *a, int n) {{
  for (int i = 0; i < n; i++) a[i] = 2.0 * a[i];
}}
int main(void) {{
  int n = 1000;
  double *a = malloc(n * sizeof *a);
  for (int i = 0; i < n; i++) a[i] = i;
  {enter}
  {{
    kernel(a, n);
    {after}
  }}
  {exit_}
  double s = a[5];
  free(a);
  return (int)s;
}}
"""


def _kernel_offered(text: str, settings: Settings = ACC) -> tuple[bool, str]:
    found = suggest_text(text, "t.c", settings).suggestions
    [kernel] = [s for s in found if s.loop.function == "kernel" and not s.inner]
    return kernel.pragma is not None, " ".join(kernel.reasons)


@pytest.mark.parametrize(
    ("enter", "after", "exit_"),
    [
        # What the kernel writes stays on the device.
        (
            "#pragma acc enter data copyin(a[0:n])",
            "",
            "#pragma acc exit data delete(a)",
        ),
        ("#pragma acc data copyin(a[0:n])", "", ""),
        ("#pragma omp target data map(to: a[0:n])", "", ""),
        # The device copy is not the host's when the kernel starts.
        ("#pragma acc data create(a[0:n])", "", ""),
        # The host reads it before the copy back.
        ("#pragma acc data copy(a[0:n])", "s0 = a[0];", ""),
        # No end: the device keeps a copy past this function.
        ("#pragma acc enter data copyin(a[0:n])", "", ""),
    ],
)
def test_a_caller_s_hold_that_breaks_the_kernel_refuses_it(
    enter: str, after: str, exit_: str
) -> None:
    text = CALLER.format(enter=enter, after=after, exit_=exit_)
    text = text.replace("int n = 1000;", "int n = 1000; double s0;")
    settings = OMP_GPU if "omp" in enter else ACC
    offered, why = _kernel_offered(text, settings)
    assert not offered
    assert "`main()` calls `kernel()` at line 11" in why


@pytest.mark.parametrize(
    ("enter", "after", "exit_"),
    [
        ("#pragma acc data copy(a[0:n])", "", ""),
        (
            "#pragma acc enter data copyin(a[0:n])",
            "",
            "#pragma acc exit data copyout(a[0:n])",
        ),
        (
            "#pragma acc enter data copyin(a[0:n])",
            "#pragma acc update self(a[0:n])",
            "#pragma acc exit data delete(a[0:n])",
        ),
        ("#pragma omp target data map(tofrom: a[0:n])", "", ""),
        ("", "", ""),
    ],
)
def test_a_coherent_hold_or_none_keeps_the_kernel(
    enter: str, after: str, exit_: str
) -> None:
    text = CALLER.format(enter=enter, after=after, exit_=exit_)
    settings = OMP_GPU if "omp" in enter else ACC
    offered, why = _kernel_offered(text, settings)
    assert offered, why


WRAPPED = """\
void kernel(double *a, int n) {
  for (int i = 0; i < n; i++) a[i] = 2.0 * a[i];
}
void wrap(double *b, int m) { kernel(b, m); }
void run(int n, double *a) {
  #pragma acc data copyin(a[0:n])
  {
    wrap(a, n);
  }
}
"""


def test_a_hold_two_calls_up_refuses() -> None:
    offered, why = _kernel_offered(WRAPPED)
    assert not offered
    assert "`run()` calls `wrap()` at line 8" in why


def test_a_caller_s_declared_array_refuses() -> None:
    text = """\
void kernel(double *a, int n) {
  for (int i = 0; i < n; i++) a[i] = 2.0 * a[i];
}
void run(void) {
  double a[100];
  #pragma acc declare create(a)
  kernel(a, 100);
}
"""
    offered, why = _kernel_offered(text)
    assert not offered
    assert "`declare` at line 6" in why


TIME_LOOP = """\
void scale(double *restrict a, int n) {
  for (int i = 0; i < n; i++) a[i] = 2.0 * a[i];
}
void shift(double *restrict a, int n) {
  for (int i = 0; i < n; i++) a[i] = a[i] + 1.0;
}
void run(int n, int steps, double *restrict a) {
  #pragma acc data copy(a[0:n])
  {
    for (int t = 0; t < steps; t++) {
      scale(a, n);
      shift(a, n);
    }
  }
}
"""


def test_kernel_calls_in_a_time_loop_of_a_data_region_keep_each_other() -> None:
    # The other kernel function's call is device code on `a`, as an offloaded
    # nest beside the loop would be.
    found = suggest_text(TIME_LOOP, "t.c", ACC).suggestions
    assert [s.pragma is not None for s in found if not s.inner] == [True, True, False]
    host = TIME_LOOP.replace(
        "      shift(a, n);\n", "      shift(a, n);\n      a[0] = 0.0;\n"
    )
    found = suggest_text(host, "t.c", ACC).suggestions
    assert [s.pragma is not None for s in found if not s.inner][:2] == [False, False]


def test_a_global_another_function_enters_passed_to_a_kernel_refuses() -> None:
    text = """\
double g[100];
void init(void) {
  #pragma acc enter data copyin(g)
}
void kernel(double *a, int n) {
  for (int i = 0; i < n; i++) a[i] = 2.0 * a[i];
}
int main(void) {
  init();
  kernel(g, 100);
  return (int)g[3];
}
"""
    offered, why = _kernel_offered(text)
    assert not offered
    assert "another function" in why
    mine = text.replace("double g[100];", "double g[100], h[100];")
    mine = mine.replace("kernel(g, 100);", "kernel(h, 100);")
    assert _kernel_offered(mine)[0]


@pytest.mark.parametrize(
    "test", ["if (a == NULL) return 1;", "if (!a) return 1;", "if (NULL != a && n) {}"]
)
def test_a_null_test_of_the_pointer_is_no_copy(test: str) -> None:
    # `if (a == NULL)` after `malloc` leaves no other name on the array: the
    # coherent hold still keeps the kernel, the broken one still refuses it
    coherent = CALLER.format(
        enter="#pragma acc enter data copyin(a[0:n])",
        after="#pragma acc update self(a[0:n])",
        exit_="#pragma acc exit data delete(a[0:n])",
    )
    broken = CALLER.format(
        enter="#pragma acc enter data copyin(a[0:n])",
        after="",
        exit_="#pragma acc exit data delete(a)",
    )
    checked = "double *a = malloc(n * sizeof *a);\n  " + test
    offered, why = _kernel_offered(
        coherent.replace("double *a = malloc(n * sizeof *a);", checked)
    )
    assert offered, why
    offered, why = _kernel_offered(
        broken.replace("double *a = malloc(n * sizeof *a);", checked)
    )
    assert not offered


def test_a_copy_of_the_pointer_still_refuses() -> None:
    text = CALLER.format(
        enter="#pragma acc enter data copyin(a[0:n])",
        after="#pragma acc update self(a[0:n])",
        exit_="#pragma acc exit data delete(a[0:n])",
    ).replace(
        "double *a = malloc(n * sizeof *a);",
        "double *a = malloc(n * sizeof *a);\n  double *b = a == NULL ? NULL : a;",
    )
    offered, _ = _kernel_offered(text)
    assert not offered
