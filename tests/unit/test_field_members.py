"""A callee reading a member stored inside the block a pointer field points to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls.cli import main

POT_H = """\
typedef struct TableSt { int n; double x0; double *values; } Table;
typedef struct PotSt { Table *phi; } Pot;
typedef struct OutSt { double *rho; } Out;
double lookup(const Table *t, double x);
void pot_kernel(const Pot *p, Out *o, int n);
"""
POT_C = """\
#include <stdlib.h>
#include "pot.h"
Pot *make_pot(int n) {
  Pot *p = malloc(sizeof(Pot));
  p->phi = malloc(sizeof(Table));
  p->phi->n = n;
  p->phi->x0 = 0.5;
  p->phi->values = malloc(n * sizeof(double));
  return p;
}
Out *make_out(int n) {
  Out *o = malloc(sizeof(Out));
  o->rho = malloc(n * sizeof(double));
  return o;
}
"""
# `x0` is a double like the elements the loop writes: the type rule cannot
# keep them apart, only the blocks the two fields point to can.
LOOKUP_C = """\
#include "pot.h"
double lookup(const Table *t, double x) {
  if (x < t->x0) x = t->x0;
  return t->values[(int)x % t->n] + t->x0;
}
"""
KERNEL_C = """\
#include "pot.h"
void pot_kernel(const Pot *p, Out *o, int n) {
  for (int i = 0; i < n; i++)
    o->rho[i] = lookup(p->phi, (double)i);
}
"""


def _kernel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], share: str
) -> dict[str, object]:
    root = tmp_path / "pot"
    root.mkdir()
    files = {"pot.h": POT_H, "pot.c": POT_C, "lookup.c": LOOKUP_C}
    files["kernel.c"] = KERNEL_C
    files["share.c"] = f'#include <stdlib.h>\n#include "pot.h"\n{share}\n'
    for name, text in files.items():
        (root / name).write_text(text)
    code = main(
        [
            "suggest",
            "--model",
            "openmp",
            "--format",
            "json",
            "--no-validate",
            "--project",
            str(root),
            "--index-cache",
            str(tmp_path / "cache"),
            str(root / "kernel.c"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    loops: dict[int, dict[str, object]] = {int(o["line"]): o for o in json.loads(out)}
    return loops[3]


def test_a_member_of_a_block_no_written_field_reaches_is_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loop = _kernel(tmp_path, capsys, "")
    assert loop["pragma"] == "#pragma omp parallel for"


@pytest.mark.parametrize(
    "share",
    [
        # The written field pointed at the member itself.
        "void share(Pot *p, Out *o) { o->rho = &p->phi->x0; }",
        # Both fields set from one block: `rho[1]` is `x0`.
        "void share(Pot *p, Out *o, int n) { double *blk = malloc((n + 4) * 8);"
        " p->phi = (Table *)blk; o->rho = blk; }",
        # The table's block seen as the written array.
        "void share(Pot *p, Out *o) { o->rho = (double *)p->phi; }",
        # One block, the table at an offset inside it.
        "void share(Pot *p, Out *o, int n) { char *blk = malloc(n * 8 + 64);"
        " o->rho = (double *)blk; p->phi = (Table *)(blk + 8); }",
    ],
)
def test_a_member_of_a_block_the_written_field_may_reach_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], share: str
) -> None:
    loop = _kernel(tmp_path, capsys, share)
    assert loop["pragma"] is None
    reasons = loop["reasons"]
    assert isinstance(reasons, list)
    assert "which reads `p->phi" in reasons[0]
