"""Row-table wrappers another file of the project defines (`alloc2d` in grid.c).

`double **b = alloc2d(n, m)` has rows that overlap nothing when grid.c fills
each row with its own `malloc`, as it would with `alloc2d` in the file itself;
a helper of another file that shares a row hands out no such table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls.cli import main

GRID_C = """\
#include <stdlib.h>
double **alloc2d(int n, int m) {
  double **t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = malloc(m * sizeof **t);
  return t;
}
double **alloc_shared(int n, int m) {
  double **t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = malloc(m * sizeof **t);
  t[1] = t[0];
  return t;
}
"""

MAIN_C = """\
double **alloc2d(int n, int m);
double **alloc_shared(int n, int m);
void run(int n, int m) {
  double **b = alloc2d(n, m);
  double **c = alloc_shared(n, m);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      b[i][k] = b[i][k] + 1.0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      c[i][k] = c[i][k] + 1.0;
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "grid.c").write_text(GRID_C)
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


def test_a_row_table_wrapper_of_another_file_gives_rows_apart(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    alone = _loops(project / "main.c", cache, capsys, "--no-index")
    assert alone[6]["pragma"] is None
    for _ in range(2):  # the second run reads the summaries from the cache
        loops = _loops(project / "main.c", cache, capsys, "--project", str(project))
        assert loops[6]["pragma"] == "#pragma omp parallel for"
        assert loops[9]["pragma"] is None  # `alloc_shared` shares a row
