"""Loops of functions the user compiles for the device: an orphaned `loop` at
the routine's level, sequential in a `routine seq`, no `target` in OpenMP's
`declare target` functions."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.pragma import Target

ACC = Settings(dialect=Dialect.OPENACC, validate=False)
OMP_GPU = Settings(dialect=Dialect.OPENMP, target=Target.GPU, validate=False)
OMP_CPU = Settings(dialect=Dialect.OPENMP, validate=False)

ROUTINES = """\
#define N 512
#pragma acc routine seq
static double dot(const double *a, const double *b, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

#pragma acc routine vector
void scale(double *x, int n, double f)
{
    for (int i = 0; i < n; i++)
        x[i] *= f;
}

#pragma acc routine worker
void rows(double *m, int r, int c)
{
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++)
            m[i * c + j] = i + 0.5 * j;
}

double run(double (*a)[N], double *b, double *r)
{
    #pragma acc parallel loop gang copyin(a[0:N][0:N], b[0:N]) copyout(r[0:N])
    for (int i = 0; i < N; i++) {
        r[i] = dot(a[i], b, N);
        scale(a[i], N, 2.0);
    }
    return r[0];
}
"""

NAMED = """\
double norm(const double *x, int n);
#pragma acc routine(norm) vector

double norm(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}
"""

BLOCK = """\
#pragma omp declare target
void scale(double *x, int n, double f)
{
    for (int i = 0; i < n; i++)
        x[i] *= f;
}

void shift(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] += 1.0;
}
#pragma omp end declare target

void host(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = 2.0 * i;
}
"""


def _by_line(text: str, settings: Settings) -> dict[int, tuple[str, str]]:
    found = suggest_text(text, "t.c", settings).suggestions
    return {
        s.loop.line: (s.pragma.render() if s.pragma else "", " ".join(s.reasons))
        for s in found
    }


def test_a_routine_seq_function_keeps_its_loops_sequential() -> None:
    pragma, why = _by_line(ROUTINES, ACC)[6]
    assert pragma == ""
    assert "`dot()` is `#pragma acc routine seq`" in why


def test_a_routine_vector_loop_is_an_orphaned_loop_vector() -> None:
    pragma, why = _by_line(ROUTINES, ACC)[14]
    assert pragma == "#pragma acc loop vector"  # no compute construct, no data
    assert "orphaned `loop`" in why


def test_a_routine_worker_nest_takes_worker_then_vector() -> None:
    found = _by_line(ROUTINES, ACC)
    assert found[21][0] == "#pragma acc loop worker"
    assert found[22][0] == "#pragma acc loop vector"


def test_the_named_form_before_the_definition_marks_it() -> None:
    pragma, _ = _by_line(NAMED, ACC)[7]
    assert pragma == "#pragma acc loop vector reduction(+:s)"


def test_declare_target_functions_get_no_target_construct() -> None:
    found = _by_line(BLOCK, OMP_GPU)
    for line in (4, 10):  # both functions of the block
        assert found[line][0] == ""
        assert "compiled for the device" in found[line][1]
    # After `end declare target` the host function is offloaded as before.
    assert found[17][0].startswith("#pragma omp target teams distribute")


def test_declare_target_functions_keep_their_cpu_suggestions() -> None:
    found = _by_line(BLOCK, OMP_CPU)
    assert found[4][0] == "#pragma omp parallel for"


def test_the_orphaned_loops_compile(tmp_path: Path, need: Any) -> None:
    gcc = need("gcc")
    lines = ROUTINES.splitlines()
    found = _by_line(ROUTINES, ACC)
    for line in sorted(found, reverse=True):
        if found[line][0]:
            lines.insert(line - 1, found[line][0])
    source = tmp_path / "r.c"
    source.write_text("\n".join(lines) + "\n")
    proc = subprocess.run(
        [gcc, "-fopenacc", "-fsyntax-only", str(source)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "#pragma acc loop vector" in source.read_text()


LISTED = """\
double s;
void kern(double *x, int n);
#pragma omp declare target(s) to(kern) device_type(any)
void kern(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] *= 2.0;
}

void host(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = 2.0 * i;
}
"""


def test_a_declare_target_list_marks_the_functions_it_names_only() -> None:
    found = _by_line(LISTED, OMP_GPU)
    assert "compiled for the device" in found[6][1]
    assert found[12][0].startswith("#pragma omp target teams distribute")


CONTINUED = """\
#pragma acc routine \\
    worker
void fill(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.5 * i;
}
"""


def test_a_routine_continued_on_the_next_line_keeps_its_level() -> None:
    pragma, why = _by_line(CONTINUED, ACC)[5]
    assert pragma == "#pragma acc loop vector"  # the only loop of a worker routine
    assert "`#pragma acc routine worker`" in why
