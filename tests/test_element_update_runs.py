"""`a[k] = a[k] op e` offloaded with `atomic update` prints what the serial run does.

The element rewritten with one commutative operator (or `a[k] = a[k] - e`) is the
update `a[k] op= e`, so a histogram written that way gets the atomic a compound
assignment gets, and a row sum `y[i] = y[i] + ...` is parallel over its rows. A
histogram into a block from `malloc(16 * sizeof(long))` moves that whole block.
Its twins stay serial: `t[k] = e - t[k]` depends on the order of the updates,
and `t[k] = t[k] + t[k2]` reads an element another iteration writes. Built with
-fopenacc (run on the host), the annotated file must print the serial output.
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

static void bins(int n, const unsigned *restrict a, unsigned *restrict totals)
{
    for (int x = 0; x < n; ++x) {
        totals[x % (n / 10 + 1)] = totals[x % (n / 10 + 1)] & a[x];
    }
}

static void counts(int n, const long *restrict v, long *restrict c)
{
    for (int x = 0; x < n; ++x) {
        c[x % 7] = c[x % 7] - v[x];
    }
}

static void rows(int n, int m, const long *restrict A, const long *restrict x,
                 long *restrict y)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            y[i] = y[i] + A[i * m + j] * x[j];
        }
    }
}

static void flips(int n, const long *restrict v, long *restrict t)
{
    for (int x = 0; x < n; ++x) {
        t[x % 8] = v[x] - t[x % 8];
    }
}

static void neighbours(int n, long *restrict t)
{
    for (int x = 0; x < n; ++x) {
        t[x % 8] = t[x % 8] + t[(x + 1) % 8];
    }
}

static void histo(int n, const int *restrict bin)
{
    long *h = (long *)malloc(16 * sizeof(long));
    for (int b = 0; b < 16; b++)
        h[b] = 0;
    for (int x = 0; x < n; ++x) {
        h[bin[x]] = h[bin[x]] + x;
    }
    for (int b = 0; b < 16; b++)
        printf("%ld\\n", h[b]);
    free(h);
}

int main(void)
{
    int n = 5000, m = 40;
    unsigned *a = malloc(n * sizeof *a), *totals = malloc(n * sizeof *totals);
    long *v = malloc(n * sizeof *v), *A = malloc((size_t)n * m * sizeof *A);
    long *y = calloc(n, sizeof *y), c[7] = {0}, t[8] = {0}, u[8] = {1};
    for (int i = 0; i < n; i++) {
        a[i] = 0xffffffffu ^ (1u << (i % 32));
        totals[i] = 0xffffffffu;
        v[i] = i % 13 - 6;
    }
    for (int i = 0; i < n * m; i++)
        A[i] = i % 5;
    bins(n, a, totals);
    counts(n, v, c);
    rows(n, m, A, v, y);
    flips(n, v, t);
    neighbours(20, u);
    int *bin = malloc(n * sizeof *bin);
    for (int i = 0; i < n; i++)
        bin[i] = (i * 7) % 16;
    histo(n, bin);
    free(bin);
    for (int k = 0; k <= n / 10; k += 50)
        printf("%u\\n", totals[k]);
    for (int k = 0; k < 7; k++)
        printf("%ld\\n", c[k]);
    for (int i = 0; i < n; i += 500)
        printf("%ld\\n", y[i]);
    for (int k = 0; k < 8; k++)
        printf("%ld %ld\\n", t[k], u[k]);
    free(a);
    free(totals);
    free(v);
    free(A);
    free(y);
    return 0;
}
"""


def _pragmas_above(lines: list[str], statement: str, count: int) -> list[str]:
    """The `count` lines above `statement` (stripped)."""
    at = lines.index(statement)
    return lines[at - count : at]


def test_element_updates_offload_and_print_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = tmp_path / "element_updates.c"
    src.write_text(PROGRAM, encoding="utf-8")
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "element_updates.acc.c"
    # `--all`: every safe pragma, whatever the cost model thinks of the sizes
    # main passes; what is tested is the update's form and the result.
    proc = run_accls(
        "annotate",
        "--model",
        "openacc",
        "--target",
        "gpu",
        "--all",
        str(src),
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines()]
    for statement in (
        "totals[x % (n / 10 + 1)] = totals[x % (n / 10 + 1)] & a[x];",
        "c[x % 7] = c[x % 7] - v[x];",
    ):
        above = _pragmas_above(lines, statement, 3)
        assert above[2] == "#pragma acc atomic update", text
        assert above[0].startswith("#pragma acc parallel loop"), text
    above = _pragmas_above(lines, "h[bin[x]] = h[bin[x]] + x;", 3)
    assert above[2] == "#pragma acc atomic update", text
    assert "copy(h[0:16])" in above[0], text  # the block malloc gave `h`
    above = _pragmas_above(lines, "for (int i = 0; i < n; i++) {", 1)
    assert above[0].startswith("#pragma acc parallel loop"), text
    for statement in (
        "t[x % 8] = v[x] - t[x % 8];",
        "t[x % 8] = t[x % 8] + t[(x + 1) % 8];",
    ):
        above = _pragmas_above(lines, statement, 2)
        assert not any(line.startswith("#pragma") for line in above), text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenacc")
    problem = compare_text(run_program(serial), run_program(exe), 0.0)
    assert problem is None, f"{problem}\n{text}"
