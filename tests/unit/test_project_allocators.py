"""Allocator wrappers another file of the project defines hand out fresh blocks.

`double *u = alloc_field(n)`, with `alloc_field` returning `malloc(..)` in
field.c, overlaps nothing else, as a `malloc` in the file itself would; a
function of another file returning a view into a global buffer is no wrapper,
and a function of the analysed file's own hides another file's of the name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls.cli import main

FIELD_C = """\
#include <stdlib.h>
double pool[4096];
double *alloc_field(int n) {
  double *f = malloc(sizeof(double) * (size_t)n);
  return f;
}
double *view(int k) { return pool + k; }
"""

MAIN_C = """\
double *alloc_field(int n);
double *view(int k);
double run(int n) {
  double *u = alloc_field(n);
  double *w = alloc_field(n);
  for (int i = 0; i < n; i++) u[i] = 0.5 * i;
  for (int i = 0; i < n; i++) w[i] = 2.0 * u[i] + 1.0;
  double *p = view(0);
  double *q = view(1);
  for (int i = 0; i < n; i++) q[i] = p[i] + 1.0;
  return w[n - 1] + q[0];
}
"""

OWN_C = """\
static double mine[4096];
static double *alloc_field(int n) { (void)n; return mine; }
double run(int n) {
  double *u = alloc_field(n);
  double *w = alloc_field(n);
  for (int i = 0; i < n; i++) w[i] = 2.0 * u[i] + 1.0;
  return w[n - 1];
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "field.c").write_text(FIELD_C)
    (root / "main.c").write_text(MAIN_C)
    return root


def _loops(
    path: Path, cache: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> dict[int, dict[str, object]]:
    argv = ["suggest", "--model", "openmp", "--format", "json", "--no-validate"]
    code = main([*argv, "--index-cache", str(cache), *extra, str(path)])
    out = capsys.readouterr().out
    assert code == 0
    return {int(o["line"]): o for o in json.loads(out)}


def test_a_wrapper_of_another_file_gives_fresh_blocks(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    alone = _loops(project / "main.c", cache, capsys, "--no-index")
    assert alone[7]["pragma"] is None
    for _ in range(2):  # the second run reads the summaries from the cache
        loops = _loops(project / "main.c", cache, capsys, "--project", str(project))
        assert loops[7]["pragma"] == "#pragma omp parallel for"
        assert loops[10]["pragma"] is None  # `view` returns the global `pool`


def test_the_files_own_function_hides_another_files_wrapper(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "main.c").write_text(OWN_C)
    loops = _loops(
        project / "main.c", tmp_path / "cache", capsys, "--project", str(project)
    )
    assert loops[6]["pragma"] is None
