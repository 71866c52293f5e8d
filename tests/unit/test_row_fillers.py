"""Tables whose rows a callee fills with fresh blocks, and rows passed to callees.

`fresh_rows(own, n)` storing `p[k] = malloc(..)` in each slot leaves `own` a
table of rows that overlap nothing, in this file or, through the index, in
another; `push(own[k], ..)` then writes within row `k`. A callee that stores a
slot from anything but an allocator (`p[1] = p[0] + n / 2`), a row shared by
two slots, a row copied to another name, or two rows of one call keep the
loop refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.cli import main
from accls.frontend import parse_source

_FILL = """
#include <stdlib.h>
#define NS 4
void fresh_rows(double **p, int n) {
  for (int k = 0; k < NS; k++) p[k] = malloc(sizeof(double) * (size_t)n);
}
void zeroed_rows(double **p, int n) {
  for (int k = 0; k < NS; k++) {
    p[k] = malloc(sizeof(double) * (size_t)n);
    if (p[k] == NULL) abort();
  }
}
void split_rows(double **p, int n) {
  p[0] = malloc(sizeof(double) * (size_t)n * NS);
  for (int k = 1; k < NS; k++) p[k] = p[0] + k * n / 2;
}
void shared_rows(double **p, double *buf) {
  for (int k = 0; k < NS; k++) p[k] = buf;
}
double **kept;
void keep_rows(double **p, int n) {
  for (int k = 0; k < NS; k++) p[k] = malloc(sizeof(double) * (size_t)n);
  kept = p;
}
void push(double *row, int n) {
  for (int i = 0; i < n; i++) row[i] = row[i] * 0.5 + i;
}
void push_two(double *row, double *other, int n) {
  for (int i = 0; i < n; i++) row[i] = row[i] * 0.5 + other[i];
}
void run(int n, double *buf) {
  double *t[NS];
  SETUP
  LOOP
}
"""

_ROWS = "for (int k = 0; k < NS; k++) for (int i = 0; i < n; i++) t[k][i] += k;"
_CALLS = "for (int k = 0; k < NS; k++) push(t[k], n);"


def _parallel(setup: str, loop: str) -> bool:
    text = _FILL.replace("SETUP", setup).replace("LOOP", loop)
    facts = analyze_text(text).facts
    line = text.splitlines().index("  LOOP".replace("LOOP", loop)) + 1
    return next(f for f in facts if f.loop.line == line).parallel


def test_fillers_are_the_functions_storing_a_fresh_block_in_each_slot() -> None:
    source = parse_source(_FILL.replace("SETUP", "").replace("LOOP", ""))
    assert source.row_fillers == {("fresh_rows", 0), ("zeroed_rows", 0)}


@pytest.mark.parametrize("setup", ["fresh_rows(t, n);", "zeroed_rows(t, n);"])
@pytest.mark.parametrize("loop", [_ROWS, _CALLS])
def test_a_table_a_filler_fills_has_rows_apart(setup: str, loop: str) -> None:
    assert _parallel(setup, loop)


@pytest.mark.parametrize(
    "setup",
    [
        "split_rows(t, n);",  # rows offsets into one block: `buf + n / 2`
        "shared_rows(t, buf);",  # every slot the same buffer
        "keep_rows(t, n); kept[1] = kept[0];",  # the callee keeps the table
        "fresh_rows(t, n); t[1] = t[0];",  # two slots on one row after the fill
        "fresh_rows(t, n); t[2] = buf;",
    ],
)
@pytest.mark.parametrize("loop", [_ROWS, _CALLS])
def test_rows_set_any_other_way_stay_refused(setup: str, loop: str) -> None:
    assert not _parallel(setup, loop)


@pytest.mark.parametrize(
    "loop",
    [
        # one call site passing the same row each iteration
        "for (int k = 0; k < NS; k++) { push(t[k], n); push(t[0], n); }",
        # the next row read through the call while the next iteration writes it
        "for (int k = 0; k < NS - 1; k++) push_two(t[k], t[k + 1], n);",
        # the next row read directly
        "for (int k = 0; k < NS - 1; k++) { push(t[k], n); t[k][0] += t[k + 1][1]; }",
        # a row copied to another name, written through both
        "for (int k = 0; k < NS; k++) { push(t[k], n); spare[k] = 1.0; }",
        "for (int k = 0; k < NS; k++) for (int i = 0; i < n; i++) "
        "{ t[k][i] = 1.0; spare[i] += 2.0; }",
        "for (int k = 0; k < NS; k++) push_two(t[k], spare, n);",
        "for (int k = 0; k < NS; k++) push_two(spare, t[k], n);",
    ],
)
def test_overlapping_uses_of_filled_rows_stay_refused(loop: str) -> None:
    assert not _parallel("fresh_rows(t, n); double *spare = t[3];", loop)


def test_a_row_copied_to_a_local_keeps_the_rows_apart() -> None:
    setup = "fresh_rows(t, n); double *spare = t[3]; spare[0] = 1.0;"
    assert _parallel(setup, _ROWS)
    assert _parallel(setup, _CALLS)


def test_rows_of_a_local_malloc_table_passed_to_a_callee() -> None:
    setup = "for (int k = 0; k < NS; k++) t[k] = malloc(sizeof(double) * n);"
    assert _parallel(setup, _CALLS)
    assert not _parallel(setup + " t[3] = t[1];", _CALLS)


_ROWS_C = """\
#include <stdlib.h>
void fresh_rows(double **p, int n) {
  for (int k = 0; k < 2; k++) p[k] = malloc(sizeof(double) * (size_t)n);
}
void split_rows(double **p, double *buf, int n) {
  p[0] = buf;
  p[1] = buf + n / 2;
}
void scale(double **p, int n) {
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < n; i++) p[k][i] *= 2.0;
}
"""

_MAIN_C = """\
void fresh_rows(double **p, int n);
void split_rows(double **p, double *buf, int n);
void scale(double **p, int n);
void push(double *row, int n) { for (int i = 0; i < n; i++) row[i] += i; }
void run(int n, double *buf) {
  double *own[2], *half[2];
  fresh_rows(own, n);
  split_rows(half, buf, n);
  scale(own, n);
  for (int k = 0; k < 2; k++)
    push(own[k], n);
  for (int k = 0; k < 2; k++)
    push(half[k], n);
}
"""


def test_fillers_and_row_keepers_of_another_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "rows.c").write_text(_ROWS_C)
    (root / "main.c").write_text(_MAIN_C)
    argv = ["suggest", "--model", "openmp", "--format", "json", "--no-validate"]
    cache = str(tmp_path / "cache")

    def loops(*extra: str) -> dict[int, object]:
        assert main([*argv, "--index-cache", cache, *extra, str(root / "main.c")]) == 0
        out = json.loads(capsys.readouterr().out)
        return {int(o["line"]): o["pragma"] for o in out}

    assert loops("--no-index")[10] is None
    for _ in range(2):  # the second run reads the summaries from the cache
        found = loops("--project", str(root))
        assert found[10] == "#pragma omp parallel for"
        assert found[12] is None  # halves of one buffer
