"""Callee slices across files: another file's `norm3(double *p)` reads `p[0..2]`."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.cli import main

VEC_H = """\
double norm3(const double *p);
void scale3(double *p, double s);
double next2(const double *p);
void move3(double *p);
void pass3(double *p);
void ext3(double *p);
"""
VEC_C = """\
#include "vec.h"
double norm3(const double *p) { return p[0] * p[0] + p[1] * p[1] + p[2] * p[2]; }
void scale3(double *p, double s) { p[0] *= s; p[1] *= s; p[2] *= s; }
double next2(const double *p) { return p[0] + p[1]; }
void move3(double *p) { p++; p[0] = 1.0; }
void pass3(double *p) { scale3(p + 1, 2.0); }
"""
# Line numbers matter: the tests below name the loops by their line.
MAIN_C = """\
#include <stdio.h>
#include "vec.h"
#define N 1000
double a[3 * N + 3], c[N + 1], r[N + 1][3];
int main(void) {
  for (int i = 0; i < 3 * N + 3; i++) a[i] = i % 7;
  for (int i = 0; i <= N; i++) c[i] = r[i][0] = r[i][1] = r[i][2] = i % 5;
  for (int i = 0; i < N; i++)
    scale3(a + 3 * i, 2.0);
  for (int i = 0; i < N; i++)
    a[3 * i + 1] = norm3(&a[3 * i]);
  for (int i = 0; i < N; i++)
    c[i] = next2(&c[i]);
  for (int i = 0; i < N; i++)
    move3(&a[3 * i]);
  for (int i = 0; i < N; i++)
    pass3(&a[3 * i]);
  for (int i = 0; i < N; i++)
    ext3(&a[3 * i]);
  for (int i = 0; i < N; i++)
    scale3(&r[i][0], 0.5);
  for (int i = 0; i < N; i++)
    r[i][1] = norm3(&r[i][0]);
  for (int i = 0; i < N; i++)
    r[i][2] = norm3(r[i]);
  for (int i = 0; i < N; i++)
    r[i][0] = norm3(&r[i][1]);
  double t = 0;
  for (int i = 0; i < 3 * N + 3; i++) t += a[i];
  for (int i = 0; i <= N; i++) t += c[i] + r[i][0] + r[i][1] + r[i][2];
  printf("%.6f\\n", t);
  return 0;
}
"""
EXT_C = '#include "vec.h"\nvoid ext3(double *p) { p[0] = p[3]; }\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "vec"
    root.mkdir()
    for name, text in (("vec.h", VEC_H), ("vec.c", VEC_C), ("main.c", MAIN_C)):
        (root / name).write_text(text)
    # ext3 is defined outside the project: its calls stay unknown.
    (tmp_path / "ext.c").write_text(EXT_C)
    return root


def _loops(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> dict[int, dict[str, object]]:
    code = main(
        [
            "suggest",
            "--model",
            "openmp",
            "--format",
            "json",
            "--no-validate",
            "--project",
            str(project),
            "--index-cache",
            str(tmp_path / "cache"),
            str(project / "main.c"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    return {int(o["line"]): o for o in json.loads(out)}


def test_another_files_callee_at_fixed_offsets_is_the_loops_access(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loops = _loops(project, tmp_path, capsys)
    assert loops[8]["pragma"] == "#pragma omp parallel for"  # scale3(a + 3*i)
    assert loops[10]["pragma"] == "#pragma omp parallel for"  # reads a[3i..3i+2]
    # Rows of `double r[N + 1][3]`: written, read at `&r[i][0]`, read by value.
    for line in (20, 22, 24):
        assert loops[line]["pragma"] == "#pragma omp parallel for"


@pytest.mark.parametrize(
    "line",
    [
        12,  # next2 reads p[1]: the element the next iteration writes
        14,  # move3 moves its pointer
        16,  # pass3 passes it on (as p + 1: into the next row)
        18,  # ext3 is defined outside the project
        26,  # norm3(&r[i][1]) reads r[i + 1][0], which iteration i + 1 writes
    ],
)
def test_other_uses_of_the_pointer_stay_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], line: int
) -> None:
    assert _loops(project, tmp_path, capsys)[line]["pragma"] is None


def test_the_slices_survive_the_index_cache(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _loops(project, tmp_path, capsys)
    again = _loops(project, tmp_path, capsys)  # read back from the cache
    assert again[8]["pragma"] == "#pragma omp parallel for"
    assert again[12]["pragma"] is None


def test_the_annotated_program_prints_the_same_at_1_and_4_threads(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    need: Callable[[str], str],
) -> None:
    gcc = need("gcc")
    (project / "main.c").write_text(MAIN_C.replace("ext3(&a[3 * i])", "(void)0"))
    (project / "vec.h").write_text(VEC_H.replace("void ext3(double *p);\n", ""))
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
    text = annotated.read_text()
    head = "#pragma omp parallel for\n  for (int i = 0; i < N; i++)\n    "
    assert head + "scale3(a + 3 * i, 2.0);" in text
    assert head + "a[3 * i + 1] = norm3(&a[3 * i]);" in text
    assert head + "r[i][1] = norm3(&r[i][0]);" in text
    exe = tmp_path / "prog"
    sources = [str(annotated), str(project / "vec.c")]
    subprocess.run(
        [
            gcc,
            "-std=c11",
            "-O1",
            "-fopenmp",
            "-I",
            str(project),
            *sources,
            "-o",
            str(exe),
        ],
        check=True,
    )
    outputs = [
        subprocess.run(
            [str(exe)],
            capture_output=True,
            text=True,
            check=True,
            env={"OMP_NUM_THREADS": threads},
        ).stdout
        for threads in ("1", "4")
    ]
    assert outputs[0] == outputs[1]
