"""`accls suggest/annotate --project`: the other files of the project are summarised."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.cli import main

MAIN_C = """\
#include <stdio.h>
void fill(double x, double *tmp);
void bump(double *out, int i);
#define N 1000
static double a[N], b[N];
int main(void) {
  for (int i = 0; i < N; i++) a[i] = i * 0.5;
  for (int i = 0; i < N; i++) {
    double tmp[5];
    fill(a[i], tmp);
    b[i] = tmp[0] + tmp[4];
  }
  for (int i = 0; i < N; i++) bump(b, i);
  double sum = 0.0;
  for (int i = 0; i < N; i++) sum += b[i];
  printf("%.3f\\n", sum);
  return 0;
}
"""
LIB_C = """\
int calls;
void fill(double x, double *tmp) {
  for (int k = 0; k < 5; k++) tmp[k] = x * k + 1.0;
}
void bump(double *out, int i) { calls++; out[i] += 1.0; }
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.c").write_text(MAIN_C)
    (root / "lib.c").write_text(LIB_C)
    return root


def _suggest(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> dict[int, dict[str, object]]:
    code = main(
        [
            "suggest",
            "--model",
            "openmp",
            "--format",
            "json",
            "--index-cache",
            str(tmp_path / "cache"),
            *extra,
            str(project / "main.c"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    return {int(o["line"]): o for o in json.loads(out)}


def test_without_a_project_the_call_is_unknown(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loops = _suggest(project, tmp_path, capsys)
    assert loops[8]["pragma"] is None
    assert any("whose side effects are unknown" in r for r in loops[8]["reasons"])  # type: ignore[attr-defined]


def test_with_the_project_a_private_effect_callee_gets_its_pragma(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loops = _suggest(project, tmp_path, capsys, "--project", str(project))
    assert loops[8]["pragma"] == "#pragma omp parallel for"
    assert any("`fill()` (lib.c:2) writes only `tmp`" in r for r in loops[8]["reasons"])  # type: ignore[attr-defined]
    assert loops[13]["pragma"] is None
    assert any(
        "(lib.c:5), which writes the global `calls`" in r
        for r in loops[13]["reasons"]  # type: ignore[attr-defined]
    )


def test_the_nearest_compile_database_names_the_project(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        {"directory": str(project), "file": name, "command": f"gcc -c {name}"}
        for name in ("main.c", "lib.c")
    ]
    (project / "compile_commands.json").write_text(json.dumps(entries))
    loops = _suggest(project, tmp_path, capsys)
    assert loops[8]["pragma"] == "#pragma omp parallel for"


def test_the_annotated_program_prints_what_the_serial_one_prints(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    need: Callable[[str], str],
) -> None:
    gcc = need("gcc")
    annotated = tmp_path / "main_omp.c"
    code = main(
        [
            "annotate",
            "--model",
            "openmp",
            "--project",
            str(project),
            "--index-cache",
            str(tmp_path / "cache"),
            str(project / "main.c"),
            "-o",
            str(annotated),
        ]
    )
    capsys.readouterr()
    assert code == 0
    assert "#pragma omp parallel for" in annotated.read_text()
    outputs: list[str] = []
    for flags, source in (([], project / "main.c"), (["-fopenmp"], annotated)):
        exe = tmp_path / f"prog{len(outputs)}"
        subprocess.run(
            [
                gcc,
                "-std=c11",
                "-O1",
                *flags,
                str(source),
                str(project / "lib.c"),
                "-o",
                str(exe),
            ],
            check=True,
        )
        run = subprocess.run(
            [str(exe)],
            capture_output=True,
            text=True,
            check=True,
            env={"OMP_NUM_THREADS": "4"},
        )
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]


def test_no_index_analyses_the_file_alone(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loops = _suggest(project, tmp_path, capsys, "--project", str(project), "--no-index")
    assert loops[8]["pragma"] is None
