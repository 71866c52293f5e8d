"""A lifetime around a time loop, with `update` at the host code: it prints the same.

The host reads the array every trip and writes it after the loop, so the kernels'
data region would sit inside the loop; `annotate` keeps the arrays on the device
across the loop instead, with `update self` before the host's reads and
`update device` after its write. The result, built with -fopenacc (on the host),
must compile as a whole and print what the serial program prints.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program, run_program

PROGRAM = """\
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 100000, steps = 30;
    double *u = malloc(n * sizeof(double));
    double *v = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        u[i] = i;
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < n; i++)
            v[i] = u[i] * 0.5;
        for (int i = 0; i < n; i++)
            u[i] = v[i] + 1.0;
        if (t % 10 == 0)
            printf("%f\\n", u[1]);
    }
    u[0] = 3.0;
    for (int i = 0; i < n; i++)
        v[i] = u[i] * 0.5;
    printf("%f %f %f\\n", u[n - 1], v[0], v[n - 1]);
    free(u);
    free(v);
    return 0;
}
"""


def test_time_loop_lifetime_with_updates_matches_the_serial_run(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = tmp_path / "time_loop.c"
    src.write_text(PROGRAM, encoding="utf-8")
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "time_loop.acc.c"
    proc = run_accls("annotate", "--model", "openacc", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines()]
    assert lines.count("#pragma acc enter data create(u[0:n]) copyin(v[0:n])") == 1
    assert "#pragma acc exit data copyout(u[0:n], v[0:n])" in lines
    assert "#pragma acc data" not in text
    # Each update moves what its host statement touches, no more.
    assert "#pragma acc update self(u[1:1])" in lines, text
    at = lines.index("u[0] = 3.0;")
    assert lines[at - 1] == "#pragma acc update self(u[0:1])"
    assert lines[at + 1] == "#pragma acc update device(u[0:1])"
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenacc")
    problem = compare_text(run_program(serial), run_program(exe), 1e-12)
    assert problem is None, f"{problem}\n{text}"


OUTPUT_PROGRAM = """\
#include <stdio.h>
#include <stdlib.h>

static void step(int n, double *restrict u, double *restrict r)
{
    for (int i = 1; i < n - 1; i++)
        r[i] = 0.5 * (u[i - 1] + u[i + 1]);
    for (int i = 1; i < n - 1; i++)
        u[i] = r[i];
}

static void output(int n, const double *u, int it)
{
    printf("%d %.9f %.9f\\n", it, u[1], u[n / 2]);
}

int main(void)
{
    int n = 4096, steps = 50;
    double *u = malloc(n * sizeof(double));
    double *r = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        u[i] = (double)(i % 7);
        r[i] = 0.0;
    }
    for (int it = 0; it < steps; it++) {
        step(n, u, r);
        if (it % 10 == 0)
            output(n, u, it);
        printf("%.9f\\n", r[2]);
    }
    printf("%.9f\\n", u[n - 2]);
    free(u);
    free(r);
    return 0;
}
"""


def test_a_time_loop_with_an_output_function_keeps_its_arrays_and_runs_alike(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = tmp_path / "output.c"
    src.write_text(OUTPUT_PROGRAM, encoding="utf-8")
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "output.acc.c"
    args = ("--model", "openacc", "--all", str(src), "-o", str(out))
    proc = run_accls("annotate", *args)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines()]
    assert "#pragma acc enter data create(r[0:n], u[0:n])" in lines, text
    # The output function reads `u` through its parameter: the whole kept
    # section comes over before the call; the print of `r[2]` needs that alone.
    at = lines.index("if (it % 10 == 0)")
    assert lines[at - 1] == "#pragma acc update self(u[0:n])", text
    at = lines.index('printf("%.9f\\n", r[2]);')
    assert lines[at - 1] == "#pragma acc update self(r[2:1])", text
    checked = run_accls("check", str(out))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenacc")
    problem = compare_text(run_program(serial), run_program(exe), 1e-12)
    assert problem is None, f"{problem}\n{text}"
