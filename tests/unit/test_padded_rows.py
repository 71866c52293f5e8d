"""Rows padded with ghost cells: `a[i + j*(n + 2)]` is split into rows of `n + 2`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.analysis.padded_rows import divide_extent, padded_extents
from accls.frontend import Poly
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program, run_program

HEAD = "void f(int n, int m, int l, double *restrict a, double *restrict b)\n{\n"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "padded_rows"


def _outer(body: str) -> str | None:
    """The pragma of the function's first loop, or None when it is refused."""
    analysis = analyze_text(HEAD + body + "}\n")
    opts = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    found = suggest_file(analysis, opts)[0]
    return found.pragma.render() if found.pragma is not None else None


def test_the_extent_is_read_off_the_subscript() -> None:
    j, n, i = Poly.sym("1"), Poly.sym("p:n"), Poly.sym("0")
    sub = i + j * (n + Poly.const(2))
    extents = padded_extents((sub,))
    assert ("p:n", n + Poly.const(2)) in extents
    quotient, rest = divide_extent(sub, "p:n", n + Poly.const(2))
    assert (quotient, rest) == (j, i)


@pytest.mark.parametrize(
    "body",
    [
        # One ghost cell a side: the column stays within [0, n + 2).
        "for (int j = 1; j <= m; j++)\n  for (int i = 1; i <= n; i++)\n"
        "    a[i + j * (n + 2)] = b[i - 1 + j * (n + 2)] + b[i + 1 + j * (n + 2)];",
        # Rows narrower than `n`: the column stays below `n - 2`.
        "for (int j = 0; j < m; j++)\n  for (int i = 0; i < n - 2; i++)\n"
        "    a[i + j * (n - 2)] = b[i];",
        # A halo of symbolic width, proved non-negative by a guard.
        "if (l < 0) return;\nfor (int j = 0; j < m; j++)\n"
        "  for (int i = l; i < n + l; i++)\n    a[i + j * (n + 2 * l)] = b[i];",
        # Three dimensions, each padded.
        "for (int k = 1; k <= l; k++)\n  for (int j = 1; j <= m; j++)\n"
        "    for (int i = 1; i <= n; i++)\n"
        "      a[i + (n + 2) * (j + (m + 2) * k)] = "
        "b[i + (n + 2) * (j + (m + 2) * k)];",
    ],
)
def test_padded_rows_are_told_apart(body: str) -> None:
    assert _outer(body) == "#pragma omp parallel for"


@pytest.mark.parametrize(
    "body",
    [
        # `i + 3` reaches past the padded row into the next one.
        "for (int j = 0; j < m; j++)\n  for (int i = 0; i < n; i++)\n"
        "    a[i + j * (n + 2)] = a[i + 3 + j * (n + 2)];",
        # The column runs to `n + 2` itself: the first cell of the next row.
        "for (int j = 0; j < m; j++)\n  for (int i = 0; i <= n + 2; i++)\n"
        "    a[i + j * (n + 2)] = b[i];",
        # Rows of `n - 2` with a column up to `n`: neighbouring rows overlap.
        "for (int j = 0; j < m; j++)\n  for (int i = 0; i < n; i++)\n"
        "    a[i + j * (n - 2)] = b[i];",
        # A real dependence between rows, distance 1.
        "for (int j = 0; j < m; j++)\n  for (int i = 1; i <= n; i++)\n"
        "    a[i + (j + 1) * (n + 2)] = a[i + j * (n + 2)];",
        # The same across planes of a padded cube.
        "for (int k = 1; k < l; k++)\n  for (int j = 1; j <= m; j++)\n"
        "    for (int i = 1; i <= n; i++)\n"
        "      a[i + (n + 2) * (j + (m + 2) * (k + 1))] = "
        "a[i + (n + 2) * (j + (m + 2) * k)];",
        # A halo `h` of unknown sign: `i` may leave [0, n + 2*h).
        "for (int j = 0; j < m; j++)\n  for (int i = 0; i < n; i++)\n"
        "    a[i + j * (n + 2 * l)] = b[i];",
    ],
)
def test_rows_that_may_overlap_stay_refused(body: str) -> None:
    assert _outer(body) is None


def test_halo_stencil_prints_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = FIXTURE / "halo_stencil.c"
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "halo_stencil.omp.c"
    proc = run_accls("annotate", "--model", "openmp", "--all", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    # Both sweeps of the 2-D stencil and the 3-D one, each on its outer loop.
    assert text.count("#pragma omp parallel for") >= 5, text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenmp")
    problem = compare_text(run_program(serial), run_program(exe), 0.0)
    assert problem is None, f"{problem}\n{text}"
