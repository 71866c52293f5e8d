"""`accls suggest --format json` accounts for every `for` loop of the file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest
from accls.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "c").glob("*.c"))


def suggest_json(
    capsys: pytest.CaptureFixture[str], path: Path, *flags: str
) -> list[dict[str, Any]]:
    code = main(["suggest", "--format", "json", "--no-validate", *flags, str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    loops: list[dict[str, Any]] = json.loads(out)
    return loops


def entries(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, src: str, *flags: str
) -> list[tuple[int, str | None, int | None, int | None]]:
    path = tmp_path / "t.c"
    path.write_text(dedent(src), encoding="utf-8")
    return [
        (x["line"], x["pragma"], x["collapsed_into"], x["inner_of"])
        for x in suggest_json(capsys, path, *flags)
    ]


MATMUL = """\
void mm(int n, double A[4][n], double B[n][n], double C[4][n]) {
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++)
        s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}
"""


def test_collapsed_and_inner_loops_are_listed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    got = entries(capsys, tmp_path, MATMUL, "--model", "openmp")
    assert got == [
        (2, "#pragma omp parallel for collapse(2)", None, None),
        (3, None, 2, None),
        (5, None, None, 2),
    ]


EXISTING = """\
void f(int n, double a[n][n][n]) {
  #pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        a[i][j][k] = 0.0;
}
"""


def test_loops_under_an_existing_collapse_are_listed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    got = entries(capsys, tmp_path, EXISTING, "--model", "openmp")
    assert [(line, into, of) for line, _, into, of in got] == [
        (3, None, None),
        (4, 3, None),
        (5, None, 3),
    ]


def test_refused_inner_loops_of_an_openacc_loop_are_listed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    src = """\
    void f(int n, int m, double *restrict a, const double *restrict b) {
      for (int i = 0; i < n; i++)
        for (int j = 1; j < m; j++)
          a[i * m + j] = a[i * m + j - 1] + b[j];
    }
    """
    got = entries(capsys, tmp_path, src)
    assert [line for line, *_ in got] == [2, 3]
    assert got[1][3] == 2


def _for_count(text: str) -> int:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return len(re.findall(r"\bfor\s*\(", text))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
@pytest.mark.parametrize("model", ["openmp", "openacc"])
def test_every_loop_of_a_fixture_appears_once(
    capsys: pytest.CaptureFixture[str], path: Path, model: str
) -> None:
    loops = suggest_json(capsys, path, "--model", model)
    lines = [(x["line"], x["column"]) for x in loops]
    assert len(lines) == len(set(lines))
    assert len(loops) == _for_count(path.read_text(encoding="utf-8"))


def test_a_loop_in_code_that_does_not_parse_is_listed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A K&R definition without a return type reads as a bare block.
    src = """\
    fill(a, n)
    double *a;
    int n;
    {
      int i;
      for (i = 0; i < n; i++) a[i] = 0.0;
    }
    void g(int n, double *restrict b) {
      for (int i = 0; i < n; i++) b[i] = 1.0;
    }
    """
    path = tmp_path / "t.c"
    path.write_text(dedent(src), encoding="utf-8")
    loops = suggest_json(capsys, path, "--model", "openmp")
    assert [(x["line"], x["pragma"] is None) for x in loops] == [(6, True), (9, False)]
    assert "does not parse" in loops[0]["reasons"][0]


SHIFTS = """\
void f(int n, const int *restrict a, int *restrict b) {
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < 3; ++y)
      b[x] = a[x * 3 + y] << b[x];
}
"""


def test_a_dependent_inner_loop_says_why_it_stays_sequential(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "t.c"
    path.write_text(SHIFTS, encoding="utf-8")
    loops = suggest_json(capsys, path, "--model", "openacc")
    inner = next(x for x in loops if x["line"] == 3)
    assert inner["inner_of"] == 2
    assert inner["pragma"] is None
    assert inner["reasons"][0].startswith("runs inside each iteration")
    assert any("dependence on `b`" in r for r in inner["reasons"][1:])


def test_a_parallel_inner_loop_has_only_its_place(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "m.c"
    path.write_text(MATMUL, encoding="utf-8")
    got = suggest_json(capsys, path, "--model", "openmp")
    inner = next(x for x in got if x["line"] == 5)
    assert inner["inner_of"] == 2
    assert len(inner["reasons"]) == 1
