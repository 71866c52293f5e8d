"""Sections of subscripts with quotients: `a[i + n / 2]`, `a[i / 2]`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.analysis.quotient_subscripts import quotient_subscript
from accls.frontend import Poly
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

HEAD = "void f(int n, int m, double *restrict x, const double *restrict y)\n{\n"


def _pragma(body: str) -> str | None:
    analysis = analyze_text(HEAD + body + "}\n")
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    found = suggest_file(analysis, opts)[0]
    return found.pragma.render() if found.pragma is not None else None


@pytest.mark.parametrize(
    ("body", "sections"),
    [
        # The upper half read through a quotient offset.
        (
            "for (int i = 0; i < n / 2; i++) x[i] = y[i + n / 2];",
            ("copyin(y[(n / 2):(n / 2)])", "copyout(x[0:(n / 2)])"),
        ),
        # The reversed half: `x[n - n/2 : n/2]`, one spelling with the bound's.
        (
            "for (int i = 0; i < n/2; i++) x[n - 1 - i] = y[i + n/2];",
            ("copyin(y[(n/2):(n/2)])", "copyout(x[n - (n/2):(n/2)])"),
        ),
        # A dividend of two terms keeps its parentheses.
        (
            "for (int i = 0; i < (n + 1) / 2; i++) x[i] = y[i + (n + 1) / 2];",
            ("copyin(y[((n + 1) / 2):((n + 1) / 2)])",),
        ),
        # Rows of a flattened 2-D array, offset by a quarter row.
        (
            "for (int i = 0; i < n; i++)\n"
            "  for (int j = 0; j < m / 4; j++)\n"
            "    x[i * m + j] = y[i * m + j + m / 4];",
            ("copyin(y[(m / 4):",),
        ),
    ],
)
def test_quotient_offsets_get_a_section(body: str, sections: tuple[str, ...]) -> None:
    pragma = _pragma(body)
    assert pragma is not None
    for text in sections:
        assert text in pragma


@pytest.mark.parametrize(
    ("body", "section"),
    [
        # A coarse grid read from a fine one: `y[0 .. (n - 1) / 2]`, empty for n = 0.
        ("for (int i = 0; i < n; i++) x[i] = y[i / 2];", "copyin(y[0:((n + 1) / 2)])"),
        (
            "for (int i = 2; i < n; i++) x[i] = y[i / 4];",
            "copyin(y[0:((n + 3) / 4)])",
        ),
        # Rows of the coarse grid: `(i / 2) * m + j`.
        (
            "for (int i = 0; i < n; i++)\n"
            "  for (int j = 0; j < m; j++)\n"
            "    x[i * m + j] = y[(i / 2) * m + j];",
            "copyin(y[0:((n + 1) / 2)*m])",
        ),
    ],
)
def test_quotients_of_the_loop_variable(body: str, section: str) -> None:
    pragma = _pragma(body)
    assert pragma is not None
    assert section in pragma


def test_a_quotient_needs_a_known_nonnegative_start() -> None:
    # Without the nest's extremes, or from a start below 0, no range is claimed.
    assert quotient_subscript("i / 2 + n", frozenset({"i"})) is None
    assert _pragma("for (int i = 0; i < n; i++) x[i] = y[(i - 1) / 2 + 1];") is None


def test_only_positive_literal_divisors() -> None:
    # `n / m` would divide by zero in the clause when `m` is 0 and the loop is empty.
    assert quotient_subscript("i + n / m", frozenset({"i"})) is None
    assert quotient_subscript("i + n % 4", frozenset({"i"})) is None
    found = quotient_subscript("i + n/2", frozenset({"i"}), ("(n / 2)",))
    assert found == (Poly.sym("i") + Poly.sym("(n / 2)"), ())


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_gcc_accepts_the_sections(tmp_path: Path) -> None:
    body = "for (int i = 0; i < n/2; i++) x[n - 1 - i] = y[i + n/2];"
    pragma = _pragma(body)
    assert pragma is not None
    source = tmp_path / "half.c"
    source.write_text(HEAD + pragma + "\n" + body + "\n}\n")
    done = subprocess.run(
        ["gcc", "-fopenacc", "-fsyntax-only", str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
