"""`declare` in all its spellings, and scalars, hold data on the device: a host
loop on them is not offloaded (its results would stay on the device)."""

from __future__ import annotations

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.pragma import Target

ACC = Settings(dialect=Dialect.OPENACC, validate=False)
OMP_GPU = Settings(dialect=Dialect.OPENMP, target=Target.GPU, validate=False)

INIT = """\
#define N 1000
{head}
void init(void) {{
  for (int i = 0; i < N; i++) {{ u[i] = i; f[i] = 1.0; }}
  {update}
}}
"""


def _offered(text: str, settings: Settings) -> dict[int, bool]:
    found = suggest_text(text, "t.c", settings).suggestions
    return {
        s.loop.line: s.pragma is not None
        for s in found
        if s.existing is None and not s.inner
    }


@pytest.mark.parametrize(
    "head",
    [
        "#pragma omp begin declare target\nstatic double u[N], f[N];\n"
        "#pragma omp end declare target",
        "#pragma omp declare target\ndouble u[N];\ndouble f[N];\n"
        "#pragma omp end declare target",
        "#pragma omp begin declare target device_type(any)\ndouble u[N], f[N];\n"
        "#pragma omp end declare target",
        "double u[N], f[N];\n#pragma omp declare target to(u, f)",
        "double u[N], f[N];\n#pragma omp declare target enter(u) link(f)",
        "double u[N], f[N];\n#pragma omp declare target (u, \\\n  f)",
    ],
)
def test_openmp_declare_target_holds_the_globals(head: str) -> None:
    text = INIT.format(head=head, update="#pragma omp target update to(u, f)")
    assert not any(_offered(text, OMP_GPU).values())


def test_a_global_outside_the_declare_target_block_is_offered() -> None:
    head = (
        "#pragma omp begin declare target\nstatic double u[N];\n"
        "#pragma omp end declare target\nstatic double f[N];"
    )
    text = INIT.format(head=head, update="").replace(" u[i] = i;", "") + (
        "void scale(void) {\n  for (int i = 0; i < N; i++) f[i] = 2.0 * f[i];\n}\n"
    )
    assert _offered(text, OMP_GPU) == {7: True, 11: True}


@pytest.mark.parametrize(
    "head",
    [
        "double u[N], f[N];\n#pragma acc declare device_resident(u, f)",
        "double u[N], f[N];\n#pragma acc declare copyin(u) pcreate(f)",
        "double u[N], f[N];\n#pragma acc declare present_or_create(u, f)",
        "double u[N], f[N];\n#pragma acc declare \\\n    create(u, f)",
    ],
)
def test_openacc_declare_holds_in_every_spelling(head: str) -> None:
    text = INIT.format(head=head, update="#pragma acc update device(u, f)")
    assert not any(_offered(text, ACC).values())


LOCAL = """\
double run(void) {
  double a[1000];
  #pragma acc declare create(a)
  for (int i = 0; i < 1000; i++) a[i] = i;
  #pragma acc update device(a)
  return 0.0;
}
double other(void) {
  double a[1000];
  for (int i = 0; i < 1000; i++) a[i] = i;
  return a[7];
}
"""


def test_a_local_declare_holds_in_its_function_only() -> None:
    assert _offered(LOCAL, ACC) == {4: False, 10: True}


SCALAR = """\
double s;
#pragma {declare}
void sum(int n, const double *restrict b, double *restrict c) {{
  for (int i = 0; i < n; i++) c[i] = s * b[i];
  for (int i = 0; i < n; i++) s += b[i];
}}
double local(int n, const double *restrict b) {{
  double s = 0.0;
  for (int i = 0; i < n; i++) s += b[i];
  return s;
}}
"""


@pytest.mark.parametrize(
    ("declare", "settings"),
    [("acc declare create(s)", ACC), ("omp declare target(s)", OMP_GPU)],
)
def test_a_declared_scalar_is_not_read_or_reduced_on_the_device(
    declare: str, settings: Settings
) -> None:
    # Read: the device's copy; reduced: the result stays on the device. A
    # local of the same name is the host's alone.
    text = SCALAR.format(declare=declare)
    assert _offered(text, settings) == {4: False, 5: False, 9: True}


HELD_SCALAR = """\
double run(int n, const double *restrict b) {
  double s = 0.0;
  #pragma acc enter data copyin(b[0:n]) create(s) if(n > 8)
  for (int i = 0; i < n; i++) s += b[i];
  #pragma acc exit data delete(b[0:n], s)
  return s;
}
"""


def test_a_scalar_an_enter_data_holds_is_refused() -> None:
    assert _offered(HELD_SCALAR, ACC) == {4: False}


def test_a_name_in_an_if_clause_or_a_bound_is_not_held() -> None:
    # `n` appears in `if(n > 8)` and in `b[0:n]`: neither moves `n`.
    text = HELD_SCALAR.replace(" create(s)", "").replace(", s)", ")")
    text = text.replace("exit data delete", "exit data copyout")
    found = suggest_text(text, "t.c", ACC).suggestions
    assert "`n`" not in " ".join(r for s in found for r in s.reasons)


ENTERED_ON_TWO_LINES = """\
void run(int n, const double *restrict a, double *restrict b)
{
    #pragma acc enter data \\
        create(b[0:n]) copyin(a[0:n])
    for (int i = 0; i < n; i++)
        b[i] = 2.0 * a[i];
    #pragma acc exit data delete(a[0:n], b[0:n])
}
"""


def test_an_enter_data_continued_on_the_next_line_holds() -> None:
    assert _offered(ENTERED_ON_TWO_LINES, ACC) == {5: False}
    fixed = ENTERED_ON_TWO_LINES.replace("delete(a[0:n], b[0:n])", "copyout(b[0:n])")
    fixed = fixed.replace("copyout(b[0:n])", "copyout(b[0:n]) delete(a[0:n])")
    assert _offered(fixed, ACC) == {5: True}


@pytest.mark.parametrize(
    ("head", "settings"),
    [
        ("double u[N], f[N];\n#pragma acc declare link(u, f)", ACC),
        ("double u[N], f[N];\n#pragma omp declare target link(u, f)", OMP_GPU),
    ],
)
def test_a_link_holds_nothing_the_loop_s_clauses_do_not_map(
    head: str, settings: Settings
) -> None:
    # The device copy of a linked global exists only where a data clause maps
    # it: the loop's own copy clauses move it.
    assert all(_offered(INIT.format(head=head, update=""), settings).values())
