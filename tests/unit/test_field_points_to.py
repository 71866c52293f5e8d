"""Points-to through struct fields over a whole project (`--project`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls.cli import main

HEADER = """\
typedef struct AtomsSt { int n; double *r; double *p; double *u; double *v; } Atoms;
void *xmalloc(unsigned long n);
Atoms *make(int n);
void opaque(Atoms *a);
void kernel(Atoms *a);
"""
ALLOC_C = """\
#include <stdlib.h>
#include "atoms.h"
void *xmalloc(unsigned long n) { return malloc(n); }
Atoms *make(int n) {
  Atoms *a = xmalloc(sizeof(Atoms));
  a->n = n;
  a->r = xmalloc(n * sizeof(double));
  a->p = (double *)calloc(n, sizeof(double));
  a->u = xmalloc(n * sizeof(double));
  a->v = a->u + 1;
  return a;
}
"""
KERNEL_C = """\
#include "atoms.h"
static double table[64];
void kernel(Atoms *a) {
  for (int i = 0; i < a->n; i++)
    a->r[i] = 2.0 * a->p[i];
  for (int i = 0; i < a->n; i++)
    a->u[i] = a->v[i] + 1.0;
  for (int i = 0; i < 64; i++)
    table[i] = a->p[i];
}
"""
MAIN_C = """\
#include "atoms.h"
int main(void) {
  Atoms *a = make(100);
  kernel(a);
  return 0;
}
"""


def _project(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    files = {"atoms.h": HEADER, "alloc.c": ALLOC_C, "kernel.c": KERNEL_C}
    files["main.c"] = MAIN_C
    files.update(extra or {})
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def _loops(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str
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
            str(root / "kernel.c"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    return {int(o["line"]): o for o in json.loads(out)}


def _reasons(loop: dict[str, object]) -> str:
    reasons = loop["reasons"]
    assert isinstance(reasons, list)
    return "\n".join(str(r) for r in reasons)


def test_fields_from_distinct_allocations_are_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    loops = _loops(root, tmp_path, capsys, "--project", str(root))
    assert loops[4]["pragma"] == "#pragma omp parallel for"
    why = _reasons(loops[4])
    assert "`a->r` and `a->p` point to distinct objects" in why
    assert "`AtomsSt.r` is `xmalloc()` at alloc.c:7" in why
    assert "`AtomsSt.p` is `calloc()` at alloc.c:8" in why
    # A file-scope array no store ever pointed a field into.
    assert loops[8]["pragma"] == "#pragma omp parallel for"


def test_a_field_set_from_another_field_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    loops = _loops(root, tmp_path, capsys, "--project", str(root))
    assert loops[6]["pragma"] is None
    assert "`a->u` (written at line 7) and `a->v` may overlap" in _reasons(loops[6])


def test_without_the_project_fields_stay_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    loops = _loops(root, tmp_path, capsys)
    assert loops[4]["pragma"] is None
    assert "pointer read from memory" in _reasons(loops[4])


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # The struct handed to a function the program does not define.
        ("use.c", '#include "atoms.h"\nvoid use(Atoms *a) { opaque(a); }\n'),
        # The field's address taken: anything may be stored through it.
        (
            "use.c",
            '#include "atoms.h"\nvoid set(double **q, double *v);\n'
            "void use(Atoms *a, double *v) { set(&a->p, v); }\n",
        ),
        # A store of a value the facts cannot name (a parameter).
        ("use.c", '#include "atoms.h"\nvoid use(Atoms *a, double *v) { a->p = v; }\n'),
        # The struct initialised positionally.
        (
            "use.c",
            '#include "atoms.h"\nextern double shared[8];\n'
            "void use(void) { Atoms b = {8, shared, shared, 0, 0}; kernel(&b); }\n",
        ),
        # The struct written by memcpy.
        (
            "use.c",
            '#include <string.h>\n#include "atoms.h"\n'
            "void use(Atoms *a, const void *raw) { memcpy(a, raw, sizeof *a); }\n",
        ),
        # The struct seen as another type.
        (
            "use.c",
            '#include "atoms.h"\nvoid use(Atoms *a, double *v) '
            "{ double **q = (double **)a; q[2] = v; }\n",
        ),
        # The struct passed as `void *` to a function of the project.
        (
            "use.c",
            '#include "atoms.h"\nstatic void keep(void *x, double *v) '
            "{ ((double **)x)[2] = v; }\n"
            "void use(Atoms *a, double *v) { keep(a, v); }\n",
        ),
    ],
)
def test_stores_the_facts_cannot_see_make_the_field_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    root = _project(tmp_path, {name: text})
    loops = _loops(root, tmp_path, capsys, "--project", str(root))
    assert loops[4]["pragma"] is None
    assert "may overlap" in _reasons(loops[4])


def test_the_facts_are_read_back_from_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    first = _loops(root, tmp_path, capsys, "--project", str(root))
    again = _loops(root, tmp_path, capsys, "--project", str(root))
    assert first == again
    assert again[4]["pragma"] == "#pragma omp parallel for"


POT_H = """\
typedef struct TableSt { int n; double *values; } Table;
typedef struct PotSt { Table *phi; double *rho; } Pot;
double lookup(const Table *t, double x);
void pot_kernel(Pot *p, int n);
"""
POT_C = """\
#include <stdlib.h>
#include "pot.h"
Pot *make_pot(int n) {
  Pot *p = malloc(sizeof(Pot));
  p->phi = malloc(sizeof(Table));
  p->phi->n = n;
  p->phi->values = malloc(n * sizeof(double));
  p->rho = malloc(n * sizeof(double));
  SHARE
  return p;
}
"""
LOOKUP_C = """\
#include "pot.h"
double lookup(const Table *t, double x) { return t->values[(int)x % t->n]; }
"""
POT_KERNEL_C = """\
#include "pot.h"
void pot_kernel(Pot *p, int n) {
  for (int i = 0; i < n; i++)
    p->rho[i] = lookup(p->phi, (double)i);
}
"""


@pytest.mark.parametrize(
    ("share", "parallel"),
    [("", True), ("if (n > 5) p->phi->values = p->rho;", False)],
)
def test_a_callee_reading_through_a_field_reads_what_its_sets_reach(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], share: str, parallel: bool
) -> None:
    root = tmp_path / "pot"
    root.mkdir()
    (root / "pot.h").write_text(POT_H)
    (root / "pot.c").write_text(POT_C.replace("SHARE", share))
    (root / "lookup.c").write_text(LOOKUP_C)
    (root / "kernel.c").write_text(POT_KERNEL_C)
    loops = _loops(root, tmp_path, capsys, "--project", str(root))
    if parallel:
        assert loops[3]["pragma"] == "#pragma omp parallel for"
        assert "`p->phi` reaches none of the objects the loop writes" in _reasons(
            loops[3]
        )
    else:
        assert loops[3]["pragma"] is None
        assert "which reads `p` through an argument" in _reasons(loops[3])


@pytest.mark.parametrize(
    ("text", "parallel"),
    [
        # A `void *` parameter that is only freed stores nothing.
        (
            '#include <stdlib.h>\n#include "atoms.h"\n'
            "void release(void *x) { free(x); }\n"
            "void drop(Atoms *a) { release(a); }\n",
            True,
        ),
        # A `void *` parameter that is kept is another matter.
        (
            '#include "atoms.h"\nvoid *kept;\n'
            "void release(void *x) { kept = x; }\n"
            "void drop(Atoms *a) { release(a); }\n",
            False,
        ),
        # A struct whose fields begin `Atoms`' (C-style inheritance): only the
        # shared first field may change through it.
        (
            '#include "atoms.h"\ntypedef struct { int n; } Base;\n'
            "void shrink(Base *b) { b->n = 0; }\n"
            "void drop(Atoms *a) { shrink((Base *)a); }\n",
            True,
        ),
        # A struct of another layout: every field may change.
        (
            '#include "atoms.h"\n'
            "typedef struct { int n; double *p; double *r; } Other;\n"
            "void swap(Other *o) { o->p = o->r; }\n"
            "void drop(Atoms *a) { swap((Other *)a); }\n",
            False,
        ),
    ],
)
def test_void_parameters_and_casts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, parallel: bool
) -> None:
    root = _project(tmp_path, {"drop.c": text})
    loops = _loops(root, tmp_path, capsys, "--project", str(root))
    assert (loops[4]["pragma"] is not None) is parallel
