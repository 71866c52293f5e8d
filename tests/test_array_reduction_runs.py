"""OpenMP array reductions print what the serial program prints, with 4 threads.

A local histogram with a bin from a pure function (`b = bin(v[i] - 7)`,
`hist[b] += w[i]`) gets `reduction(+:hist)`; through a pointer, in loops that
surely run, column sums `c[y] += a[x * 10 + y]` get `reduction(+:c[0:10])` and
products `p[j + 1] *= ...` get `reduction(*:p[1:4])`. Built with -fopenmp (also
the `target` form, run on the host), the annotated file must print the serial
output. Integer data: the comparison is exact.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program

PROGRAM = """\
#include <stdio.h>
#include <stdlib.h>

static int bin(int x)
{
    return x < 0 ? 0 : (x > 15 ? 15 : x);
}

static long histo(int n, const int *restrict v, const long *restrict w)
{
    long hist[16] = {0};
    for (int i = 0; i < n; i++) {
        int b = bin(v[i] - 7);
        hist[b] += w[i];
    }
    long s = 0;
    for (int k = 0; k < 16; k++)
        s = s * 3 + hist[k];
    return s;
}

#define ROWS 2000

static void cols(const long *restrict a, long *restrict c)
{
    for (int x = 0; x < ROWS; ++x) {
        for (int y = 0; y < 10; ++y) {
            c[y] = c[y] + a[x * 10 + y];
        }
    }
}

static void prods(const long *restrict a, long *restrict p)
{
    for (int x = 0; x < 40; ++x) {
        for (int j = 0; j < 4; ++j) {
            p[j + 1] *= a[x * 4 + j] % 3 + 1;
        }
    }
}

int main(void)
{
    int n = 20000;
    int *v = malloc(n * sizeof *v);
    long *w = malloc(n * sizeof *w), *a = malloc((size_t)n * 10 * sizeof *a);
    long c[10] = {0}, p[6] = {1, 1, 1, 1, 1, 1};
    for (int i = 0; i < n; i++) {
        v[i] = (i * 7 + 3) % 29;
        w[i] = i % 11 - 5;
    }
    for (int i = 0; i < n * 10; i++)
        a[i] = (i * 13) % 17;
    printf("%ld\\n", histo(n, v, w));
    cols(a, c);
    prods(a, p);
    for (int k = 0; k < 10; k++)
        printf("%ld\\n", c[k]);
    for (int k = 0; k < 6; k++)
        printf("%ld\\n", p[k]);
    free(v);
    free(w);
    free(a);
    return 0;
}
"""


def _run(exe: Path, threads: int) -> str:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    proc = subprocess.run(
        [str(exe)], capture_output=True, text=True, check=False, timeout=30, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    ("target", "directive"),
    [("cpu", "omp parallel for"), ("gpu", "omp target teams distribute parallel for")],
)
def test_array_reductions_print_the_serial_output(
    need: Callable[[str], str], tmp_path: Path, target: str, directive: str
) -> None:
    gcc = need("gcc")
    src = tmp_path / "array_reductions.c"
    src.write_text(PROGRAM, encoding="utf-8")
    serial = tmp_path / "serial"
    build_program(gcc, src, serial, "-O1")
    out = tmp_path / f"array_reductions.{target}.c"
    proc = run_accls(
        "annotate", "--model", "openmp", "--target", target, "--all", str(src),
        "-o", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    pragmas = [line.strip() for line in text.splitlines() if "#pragma" in line]
    for clause in ("reduction(+:hist)", "reduction(+:c[0:10])", "reduction(*:p[1:4])"):
        assert any(
            p.startswith(f"#pragma {directive}") and clause in p for p in pragmas
        ), text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenmp")
    expected = _run(serial, 1)
    problem = compare_text(expected, _run(exe, 4), 0.0)
    assert problem is None, f"{problem}\n{text}"
