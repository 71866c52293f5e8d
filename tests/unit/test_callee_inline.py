"""A callee's accesses to globals and through pointer parameters, written in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.analysis.checks import check_file
from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program, run_program

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callee_inline"

HEAD = """\
#define N 1000
static double u[N], f[N], r[N];
static double s;
static int idx[N];
static unsigned mix(unsigned h) { h ^= h >> 16; return h * 0x45d9f3bu; }
static void upd(int i) { r[i] = f[i] - 2.0 * u[i] + u[i - 1] + u[i + 1]; }
static void relax(int i) { u[i] = 0.5 * (u[i - 1] + u[i + 1]); }
static void shift(int i) { r[i + 1] = r[i] + 1.0; }
static void next(int i) { r[i + 1] = f[i]; }
static void total(int i) { r[i] = f[i]; s = r[i]; }
static void count(int i) { static int c; c++; r[i] = c; }
static void gather(int i) { r[idx[i]] = f[i]; }
static void one(int i) { r[i] = f[i]; }
static void self(int i) { r[i] = f[i]; if (i > 0) self(i - 1); }
static void maybe(int i) { if (f[i] > 0) r[i] = f[i]; }
static void maybe_next(int i) { if (f[i] > 0) r[i + 1] = r[i]; }
static void pair(double *v, int i, int j) {
  if (v[i] > v[j]) { double t = v[i]; v[i] = v[j]; v[j] = t; }
}
static void early(int i) { if (f[i] > 0) return; r[i] = f[i]; }
static void scaled(int i) { r[i] = s * f[i]; }
static void clip(int i) { r[i] = f[i] > 0 ? f[i] : u[i]; }
static void skip(int n, int i) {
  for (int j = 0; j < n; j++) { if (j == i) continue; r[i * 0 + j] = 0.0; }
}
static void hashed(int i) { r[i] = (double)mix((unsigned)i); }
static void set_row(double *a, int n, int i) {
  for (int j = 0; j < n; j++) a[i * n + j] = i + j;
}
static void get_row(double *a, int n, int i) {
  for (int j = 0; j < n; j++) a[i * n + j] = a[i * n + j + 1];
}
static void moved(double *a, int n, int i) { a = a + 1; a[i * n] = 0.0; }
static double *hold;
static void stored(double *a, int i) { hold = a; a[i] = 0.0; }
void run(int n, double *p) {
  double grid[100 * 100];
  for (int i = 1; i < N - 1; i++) {
"""


def _verdict(body: str) -> tuple[bool, str]:
    found = analyze_text(HEAD + f"    {body}\n  }}\n  p[0] = grid[5];\n}}\n").facts
    loop = next(f for f in found if f.loop.function == "run" and f.loop.var == "i")
    reasons = " ".join(
        [
            *(o.message for o in loop.obstacles),
            *loop.call_effects,
            *(d.reason for d in loop.dependences),
        ]
    )
    return loop.parallel, reasons


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("upd(i);", "`r[i]`"),
        ("next(i);", "`r[i + 1]`"),
        ("set_row(grid, 100, i);", "`grid[j + 100*i]`"),
        ("scaled(i);", "`f[i]`"),
        ("hashed(i);", "`r[i]`"),
        ("clip(i);", "`u[i]`"),  # a read on some paths only, read as always
        ("maybe(i);", "`r[i]`"),  # a write on some paths only, tested as always
        ("upd(i); grid[i] = r[i];", "`u[i + 1]`"),
    ],
)
def test_a_callee_writing_its_own_element_is_parallel(body: str, shown: str) -> None:
    ok, why = _verdict(body)
    assert ok, why
    assert shown in why


@pytest.mark.parametrize(
    "body",
    [
        "relax(i);",  # writes u[i], reads u[i + 1] and u[i - 1]
        "shift(i);",  # writes r[i + 1], reads r[i]
        "total(i);",  # writes the global scalar `s`
        "count(i);",  # a `static` local counts the calls
        "gather(i);",  # `r[idx[i]]`: the index is data
        "one(i); one(N - 1 - i);",  # two iterations write one element
        "self(i);",  # recursion
        "maybe_next(i);",  # a write under a condition, into the next element
        "pair(u, i, i + 1);",  # a compare-exchange of overlapping pairs
        "skip(N, i);",  # `continue` before the write
        "early(i);",  # a write after an early return
        "s = i; scaled(i);",  # reads the scalar the loop writes
        "upd(i); u[i] = 1.0;",  # the loop writes what the callee reads
        "upd(i); p[i] = 1.0;",  # `p` may point into `u`
        "get_row(grid, 100, i);",  # reads the next row's first element
        "moved(grid, 100, i);",  # the pointer moves
        "stored(grid, i);",  # the pointer is stored
        "set_row(p, 100, i);",  # a pointer argument may point anywhere
        "if (i % 2) upd(i);",  # a call on some paths only is not placed
    ],
)
def test_a_callee_that_may_meet_another_iteration_is_refused(body: str) -> None:
    ok, why = _verdict(body)
    assert not ok, why


def test_heat_rows_prints_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = FIXTURE / "heat_rows.c"
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "heat_rows.omp.c"
    proc = run_accls("annotate", "--model", "openmp", "--all", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if "/* expert: parallel */" in line:
            assert "#pragma omp" in lines[k - 1], text
        if "/* trap:" in line:
            assert "#pragma omp" not in lines[k - 1], text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenmp")
    expected = run_program(serial)
    for threads in (1, 4):
        problem = compare_text(expected, run_program(exe, threads), 0.0)
        assert problem is None, f"{problem}\n{text}"


@pytest.mark.parametrize(
    "body",
    [
        "upd(i); grid[i] = p[i];",  # `p` may point into `r`, which upd writes
        "upd(i); grid[i] = *p;",
    ],
)
def test_a_read_through_a_pointer_beside_a_callee_write_is_refused(body: str) -> None:
    ok, why = _verdict(body)
    assert not ok, why


def test_a_write_through_a_global_pointer_beside_a_callee_read_is_refused() -> None:
    src = HEAD.replace("void run(", "double *gp;\nvoid run(")
    text = src + "    gp[i] = 1.0; upd(i);\n  }\n  p[0] = grid[5];\n}\n"
    found = analyze_text(text).facts
    loop = next(f for f in found if f.loop.function == "run" and f.loop.var == "i")
    assert not loop.parallel


_CHECKED = """\
#define N 1000
static double u[N], f[N], r[N];
static void upd(int i) { r[i] = f[i] - 2.0 * u[i] + u[i - 1] + u[i + 1]; }
static void relax(int i) { u[i] = 0.5 * (u[i - 1] + u[i + 1]) + f[i]; }
void run(void) {
  #pragma omp parallel for
  for (int i = 1; i < N - 1; i++) upd(i);
  #pragma omp parallel for
  for (int i = 1; i < N - 1; i++) relax(i);
}
"""


def test_check_names_the_race_of_an_in_place_callee_only() -> None:
    found = check_file(_CHECKED, "t.c")
    errors = [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]
    assert errors == [("ACC101", 4)]
    assert not [f for f in found if f.code == "ACC110"]  # upd is no unknown call


_EXCHANGE = """\
#define M 64
static int a[M];
static void cswap(int *v, int i, int j) {
  if (v[i] > v[j]) { int t = v[i]; v[i] = v[j]; v[j] = t; }
}
void phase(int ph) {
  for (int i = ph % 2; i < M - 2; i += 2) cswap(a, i, i + %s);
}
"""


@pytest.mark.parametrize(("partner", "parallel"), [("1", True), ("2", False)])
def test_a_compare_exchange_pass_is_parallel_when_its_pairs_are_apart(
    partner: str, parallel: bool
) -> None:
    # `i += 2` with partners `i + 1` touch disjoint pairs; `i + 2` is the next
    # iteration's first element, so those pairs overlap.
    (facts,) = analyze_text(_EXCHANGE.replace("%s", partner)).facts[-1:]
    assert facts.parallel is parallel
