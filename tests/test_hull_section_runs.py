"""An array read over two extents no fact orders moves as the hull of both.

`y[i]` for `i < n` and `y[k]` for `k < m` in one nest: no section could be
derived, so the nest had no data clause and only its inner loops were
offered, a kernel per outer iteration. Now it moves `y[0:(n > m ? n : m)]`
and the outer loop takes `gang`; an array it also writes over the hull is
copied both ways (`copy`), never `copyout`, since the hull holds elements the
nest does not write. Built with -fopenacc (run on the host), the annotated
file must print the serial output, with `n < m` and with `n > m`.
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

static void scale(int n, int m, double *restrict x, const double *restrict y)
{
    for (int i = 0; i < n; i++) {
        double t = y[i];
        for (int j = 0; j < m; j++)
            x[i * m + j] = t * y[j];
    }
}

static void shift(int n, int m, double *restrict w)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++)
            s += w[j + n];
        w[i] = s + i;
    }
}

static void run(int n, int m)
{
    double *x = malloc((size_t)n * m * sizeof *x);
    double *y = malloc((size_t)(n > m ? n : m) * sizeof *y);
    double *w = malloc((size_t)(2 * n + m) * sizeof *w);
    for (int k = 0; k < (n > m ? n : m); k++)
        y[k] = 0.5 * k + 1.0;
    for (int k = 0; k < 2 * n + m; k++)
        w[k] = k % 7;
    scale(n, m, x, y);
    shift(n, m, w);
    double sum = 0.0;
    for (int k = 0; k < n * m; k++)
        sum += x[k] * (k % 3);
    for (int k = 0; k < 2 * n + m; k++)
        sum += w[k];
    printf("%d %d %.6f\\n", n, m, sum);
    free(x);
    free(y);
    free(w);
}

int main(void)
{
    run(300, 40);
    run(40, 300);
    return 0;
}
"""


def test_hull_sections_offload_the_outer_loop_and_print_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = tmp_path / "hull.c"
    src.write_text(PROGRAM, encoding="utf-8")
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "hull.acc.c"
    proc = run_accls(
        "annotate", "--model", "openacc", "--all", str(src), "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert "copyin(y[0:(n > m ? n : m)])" in text, text
    lines = [line.strip() for line in text.splitlines()]
    outer = lines[lines.index("double t = y[i];") - 2]
    assert outer.startswith("#pragma acc parallel loop gang"), text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenacc")
    problem = compare_text(run_program(serial), run_program(exe), 0.0)
    assert problem is None, f"{problem}\n{text}"
