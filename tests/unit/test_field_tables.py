"""Rows of pointer tables in struct fields; calls through function-pointer fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls.analysis.field_calls import holder_of
from accls.cli import main
from accls.frontend.parse import parse_source

HEADER = """\
typedef struct CellsSt { int n; double **nbr; double *f; } Cells;
struct SimSt;
typedef struct BaseSt { int kind; void (*step)(struct SimSt *); } Base;
typedef struct FastSt { int kind; void (*step)(struct SimSt *); double speed; } Fast;
typedef struct SimSt { int n; double *r; double *p; Base *ops; } Sim;
Cells *make_cells(int n);
Sim *make_sim(int n);
void kernel(Cells *c, Sim *s);
"""
ALLOC_C = """\
#include <stdlib.h>
#include "cells.h"
Cells *make_cells(int n) {
  Cells *c = malloc(sizeof(Cells));
  c->n = n;
  c->f = malloc(n * sizeof(double));
  c->nbr = malloc(n * sizeof(double *));
  for (int i = 0; i < n; i++)
    c->nbr[i] = malloc(3 * sizeof(double));
  return c;
}
"""
OPS_C = """\
#include <stdlib.h>
#include "cells.h"
static void drift(Sim *s) { s->n = s->n; }
Sim *make_sim(int n) {
  Sim *s = malloc(sizeof(Sim));
  s->n = n;
  s->r = malloc(n * sizeof(double));
  s->p = malloc(n * sizeof(double));
  Fast *fast = malloc(sizeof(Fast));
  fast->step = drift;
  s->ops = (Base *)fast;
  return s;
}
"""
KERNEL_C = """\
#include "cells.h"
void kernel(Cells *c, Sim *s) {
  for (int i = 0; i < c->n; i++)
    for (int k = 0; k < 3; k++)
      c->f[i] += c->nbr[i][k];
  s->ops->step(s);
  for (int i = 0; i < s->n; i++)
    s->r[i] += s->p[i];
}
"""
MAIN_C = """\
#include "cells.h"
int main(void) {
  kernel(make_cells(100), make_sim(100));
  return 0;
}
"""
ROWS_LOOP, STEP_LOOP = 3, 7


def _loops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: dict[str, str]
) -> dict[int, dict[str, object]]:
    root = tmp_path / "proj"
    root.mkdir()
    files = {"cells.h": HEADER, "alloc.c": ALLOC_C, "ops.c": OPS_C}
    files.update({"kernel.c": KERNEL_C, "main.c": MAIN_C, **extra})
    for name, text in files.items():
        (root / name).write_text(text)
    code = main(
        [
            "suggest",
            "--model",
            "openmp",
            "--format",
            "json",
            "--index-cache",
            str(tmp_path / "cache"),
            "--project",
            str(root),
            str(root / "kernel.c"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    return {int(o["line"]): o for o in json.loads(out)}


def _why(loop: dict[str, object]) -> str:
    reasons = loop["reasons"]
    assert isinstance(reasons, list)
    return "\n".join(str(r) for r in reasons)


def test_rows_of_fresh_blocks_and_known_function_pointers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loops = _loops(tmp_path, capsys, {})
    assert loops[ROWS_LOOP]["pragma"] == "#pragma omp parallel for"
    assert "every store to a row of `CellsSt.nbr` is `malloc()` at alloc.c:9" in (
        _why(loops[ROWS_LOOP])
    )
    assert loops[STEP_LOOP]["pragma"] == "#pragma omp parallel for"


# Each changes one file so that a row may point into `c->f`, or be set unseen.
_ROWS_RACY = {
    "a row set into the written array": (
        "c->nbr[i] = malloc",
        "c->nbr[i] = c->f + i; (void)malloc",
    ),
    "a row's address taken": (
        "return c;",
        "double **slot = &c->nbr[0]; *slot = c->f; return c;",
    ),
    "the table written through a dereference": (
        "return c;",
        "*c->nbr = c->f; return c;",
    ),
    "the table passed bare to a call": ("return c;", "fill(c->nbr, c->f); return c;"),
    "the table copied from another table": (
        "c->nbr = malloc(n * sizeof(double *));",
        "c->nbr = other_table(n);",
    ),
}


@pytest.mark.parametrize("case", sorted(_ROWS_RACY))
def test_rows_that_may_meet_the_written_array_are_refused(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = _ROWS_RACY[case]
    assert old in ALLOC_C
    text = ALLOC_C.replace(old, new)
    text = text.replace(
        "Cells *make_cells",
        "void fill(double **rows, double *into);\n"
        "double **other_table(int n);\nCells *make_cells",
    )
    loops = _loops(tmp_path, capsys, {"alloc.c": text})
    assert loops[ROWS_LOOP]["pragma"] is None, case
    assert "`c->f` (written at line 5) and `c->nbr` may overlap" in _why(
        loops[ROWS_LOOP]
    )


_STEP_RACY = {
    "a target of unknown origin": (
        "  return s;\n}\n",
        "  return s;\n}\nvoid set(Fast *f, void (*g)(Sim *)) { f->step = g; }\n",
        "a value of unknown origin is stored at ops.c:",
    ),
    "a target taking another struct": (
        "static void drift(Sim *s) { s->n = s->n; }",
        "static void drift(Cells *s) { s->n = s->n; }",
        "which does not take a pointer to `SimSt` there",
    ),
    "a struct initialised positionally": (
        "  return s;\n",
        "  Fast other = {1, drift, 2.0};\n  *fast = other;\n  return s;\n",
        "`FastSt` may hold it",
    ),
    "a struct handed to a function no file shows": (
        "  return s;\n",
        "  opaque(fast);\n  return s;\n",
        "may hold it and is passed to `opaque()`",
    ),
}


@pytest.mark.parametrize("case", sorted(_STEP_RACY))
def test_calls_through_fields_that_may_hold_anything_are_refused(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, said = _STEP_RACY[case]
    assert old in OPS_C
    text = OPS_C.replace(old, new).replace(
        "static void drift", "void opaque(Fast *f);\nstatic void drift"
    )
    loops = _loops(tmp_path, capsys, {"ops.c": text})
    assert loops[STEP_LOOP]["pragma"] is None, case
    why = _why(loops[STEP_LOOP])
    assert "a call through the field `step`" in why
    assert said in why


HALVES_C = """\
#include <stdlib.h>
typedef struct { int n; double **rows; } Pair;
static void kernel(Pair *p) {
  for (int i = 0; i < p->n; i++)
    p->rows[1][i] = p->rows[0][i] + 1.0;
}
int main(void) {
  Pair *p = malloc(sizeof(Pair));
  p->n = 64;
  double *buf = malloc(128 * sizeof(double));
  p->rows = malloc(2 * sizeof(double *));
  p->rows[0] = buf;
  p->rows[1] = buf + 32;
  kernel(p);
  return 0;
}
"""


def test_two_rows_into_one_buffer_at_overlapping_offsets_stay_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "halves"
    root.mkdir()
    (root / "halves.c").write_text(HALVES_C)
    code = main(
        [
            "suggest",
            "--model",
            "openmp",
            "--format",
            "json",
            "--index-cache",
            str(tmp_path / "cache"),
            "--project",
            str(root),
            str(root / "halves.c"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    loop = {int(o["line"]): o for o in json.loads(out)}[4]
    assert loop["pragma"] is None
    assert "two rows of one buffer may overlap" in _why(loop)


def test_a_struct_handed_to_a_void_parameter_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ops = OPS_C + "void relay(Cells *c, void *v) { (void)c; (void)v; }\n"
    kernel = KERNEL_C.replace("s->ops->step(s);", "relay(0, s);").replace(
        '#include "cells.h"', '#include "cells.h"\nvoid relay(Cells *c, void *v);'
    )
    loops = _loops(tmp_path, capsys, {"ops.c": ops, "kernel.c": kernel})
    loop = loops[STEP_LOOP + 1]
    assert loop["pragma"] is None
    # `(void)v` is a use field_void does not follow: the message says so.
    assert (
        "is passed to `relay()` (ops.c:14) at kernel.c:7 as a `void *` that it "
        "uses other than by typing it back" in _why(loop)
    )


def test_a_function_pointer_in_a_union_has_no_known_holder() -> None:
    text = (
        "typedef union { void (*step)(int *); long bits; } U;\n"
        "typedef struct { void (*step)(int *); long bits; } S;\n"
        "void f(U *u, S *s) { u->step(0); s->step(0); }\n"
    )
    source = parse_source(text, "u.c")
    fn = source.function("f")
    assert holder_of("u->step", fn, source.globals, source.types) == ("", "step")
    found = holder_of("s->step", fn, source.globals, source.types)
    assert found is not None
    assert found[0]
    assert found[1] == "step"
