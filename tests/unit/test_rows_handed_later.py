"""A table handed on to code that may re-point a slot keeps its rows apart before that.

`memcpy(&t[3], &t[2], ..)` or an unseen `hook(t)` refutes the rows apart only
for the loops the call may precede: those after it, and those inside a loop
around both. A `goto`, a `static` table and a call inside the nest keep the
refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source
from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program, run_program

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "row_handoffs"

HEAD = """\
#include <stdlib.h>
#include <string.h>
void hook(double **t);
double **kept;
static void keep(double **t) { kept = t; }
static void merge(void) { kept[3] = kept[2]; }
void run(int n, int steps) {
  double **t = malloc(8 * sizeof *t);
  for (int r = 0; r < 8; r++) t[r] = malloc(n * sizeof(double));
"""
SWEEP = (
    "  for (int r = 0; r < 8; r++) /* sweep */\n"
    "    for (int c = 0; c < n; c++) t[r][c] += r;\n"
)


def _sweep_parallel(body: str, head: str = HEAD) -> bool:
    """Whether the loop marked `sweep` is parallel in `run`."""
    text = head + body + "}\n"
    line = text[: text.index("/* sweep */")].count("\n") + 1
    facts = analyze(parse_source(text, "k.c")).facts
    return next(f for f in facts if f.loop.span.line == line).parallel


@pytest.mark.parametrize(
    "body",
    [
        SWEEP + "  memcpy(&t[3], &t[2], sizeof t[2]);\n",
        SWEEP + "  hook(t);\n",
        SWEEP + "  keep(t);\n  merge();\n",
        # the call inside a later loop: that loop does not hold the sweep
        SWEEP + "  for (int s = 0; s < steps; s++) hook(t);\n",
    ],
)
def test_a_sweep_before_the_call_keeps_the_rows_apart(body: str) -> None:
    assert _sweep_parallel(body)


@pytest.mark.parametrize(
    "body",
    [
        "  memcpy(&t[3], &t[2], sizeof t[2]);\n" + SWEEP,
        "  hook(t);\n" + SWEEP,
        "  keep(t);\n" + SWEEP + "  merge();\n",
        # a loop around both: the call precedes the next time step's sweep
        "  for (int s = 0; s < steps; s++) {\n" + SWEEP + "    hook(t);\n  }\n",
        "  while (steps--) {\n" + SWEEP + "    memcpy(&t[3], &t[2], 8);\n  }\n",
        # a jump back runs the sweep again after the call
        "again:\n" + SWEEP + "  hook(t);\n  if (--steps > 0) goto again;\n",
        # the call inside the nest
        "  for (int r = 0; r < 8; r++) /* sweep */ {\n"
        "    for (int c = 0; c < n; c++) t[r][c] += r;\n"
        "    if (r == 4) hook(t);\n  }\n",
    ],
)
def test_a_sweep_the_call_may_precede_stays_serial(body: str) -> None:
    assert not _sweep_parallel(body)


def test_a_static_table_may_be_re_pointed_by_an_earlier_call() -> None:
    head = HEAD.replace("  double **t = malloc", "  static double **t;\n  t = malloc")
    assert _sweep_parallel(SWEEP, head)  # never handed on: its rows are apart
    assert not _sweep_parallel(SWEEP + "  hook(t);\n", head)


def test_the_handed_later_fixture_prints_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = FIXTURE / "handed_later.c"
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "handed_later.omp.c"
    proc = run_accls("annotate", "--model", "openmp", "--all", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    # The two sweeps over rows before `memcpy`, not the one after it (its
    # loop within one row is parallel).
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "memcpy(&t[3]" in line)
    rows = [i for i, line in enumerate(lines) if "omp parallel" in line]
    rows = [i for i in rows if "for (int r" in lines[i + 1]]
    assert len(rows) == 2, text
    assert all(i < at for i in rows), text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenmp")
    for threads in (1, 4):
        problem = compare_text(run_program(serial), run_program(exe, threads), 0.0)
        assert problem is None, f"{problem}\n{text}"
