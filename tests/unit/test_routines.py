"""Routine directives for the functions an offloaded loop calls, or why not."""

from __future__ import annotations

import subprocess
from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP_GPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)
OMP_CPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)

PRELUDE = """\
#include <stdio.h>
#define N 100
double a[N], b[N];
double sq(double x);
"""
CALLEES = """\
double sq(double x) { return x * x; }
static double twice(double x) { return sq(x) + sq(x); }
"""


def _suggest(
    body: str, opts: SuggestOptions, tail: str = ""
) -> tuple[str, tuple[Suggestion, ...]]:
    text = f"{PRELUDE}{dedent(tail)}void run(void) {{\n{dedent(body)}\n}}\n{CALLEES}"
    analysis = analyze_text(
        text, options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    return text, suggest_file(analysis, opts, regions=False)


def _top(suggestions: tuple[Suggestion, ...]) -> Suggestion:
    return next(s for s in suggestions if not s.inner)


def test_acc_routine_at_definition_and_prototype() -> None:
    text, out = _suggest("for (int i = 0; i < N; i++) a[i] = sq(b[i]);", ACC)
    top = _top(out)
    assert top.pragma is not None
    assert [(r.function, r.prototype, r.pragma.render()) for r in top.routines] == [
        ("sq", True, "#pragma acc routine seq"),
        ("sq", False, "#pragma acc routine seq"),
    ]
    annotated = annotate_text(text, out)
    assert annotated.count("#pragma acc routine seq\n") == 2
    assert "#pragma acc routine seq\ndouble sq(double x);" in annotated
    assert "#pragma acc routine seq\ndouble sq(double x) {" in annotated
    assert any("acc routine seq` on `sq()`" in r for r in top.reasons)


def test_callees_of_a_routine_become_routines_too() -> None:
    tail = "static double twice(double x);\n"
    _, out = _suggest("for (int i = 0; i < N; i++) a[i] = twice(b[i]);", ACC, tail)
    assert {r.function for r in _top(out).routines} == {"twice", "sq"}


def test_omp_declare_target_wraps_definition(tmp_path: Path) -> None:
    text, out = _suggest("for (int i = 0; i < N; i++) a[i] = sq(b[i]);", OMP_GPU)
    annotated = annotate_text(text, out)
    assert annotated.count("#pragma omp declare target\n") == 2
    assert annotated.count("#pragma omp end declare target") == 2
    assert "double sq(double x) { return x * x; }\n#pragma omp end declare target" in (
        annotated
    )
    path = tmp_path / "f.c"
    path.write_text(annotated)
    proc = subprocess.run(
        ["gcc", "-fopenmp", "-fsyntax-only", "-Wall", "-Werror", str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_cpu_loops_need_no_routine() -> None:
    _, out = _suggest("for (int i = 0; i < N; i++) a[i] = sq(b[i]);", OMP_CPU)
    assert _top(out).pragma is not None
    assert _top(out).routines == ()


def test_two_loops_share_one_routine_edit() -> None:
    body = """\
    for (int i = 0; i < N; i++) a[i] = sq(b[i]);
    for (int i = 0; i < N; i++) b[i] = sq(a[i]);
    """
    text, out = _suggest(body, ACC)
    assert annotate_text(text, out).count("#pragma acc routine seq") == 2


@pytest.mark.parametrize(
    ("callee", "why"),
    [
        (
            "double g = 2.0;\nstatic double h(double x) { return x * g; }",
            "uses the global `g`",
        ),
        (
            "static double h(double x) { static double k; k += x; return k; }",
            "`static` local",
        ),
    ],
)
def test_a_function_that_cannot_be_a_routine_refuses_the_loop(
    callee: str, why: str
) -> None:
    _, out = _suggest("for (int i = 0; i < N; i++) a[i] = h(b[i]);", ACC, callee + "\n")
    top = _top(out)
    if top.pragma is None and any(why in r for r in top.reasons):
        return
    # The analysis may refuse it first, for its own reason: never with a routine.
    assert top.pragma is None
    assert top.routines == ()


def test_declared_only_after_the_loop() -> None:
    text = (
        "#define N 100\ndouble a[N], b[N];\n"
        "void run(void) {\n  for (int i = 0; i < N; i++) a[i] = late(b[i]);\n}\n"
        "double late(double x) { return x + 1.0; }\n"
    )
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    top = _top(suggest_file(analysis, ACC, regions=False))
    assert top.pragma is None  # OpenACC: the mark must come before the use
    assert any("declared only after its call" in r for r in top.reasons)
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    top = _top(suggest_file(analysis, OMP_GPU, regions=False))
    assert top.pragma is not None  # OpenMP: `declare target` on the later definition
    assert [r.function for r in top.routines] == ["late"]


def test_a_callee_reading_a_global_array_has_it_copied_in() -> None:
    # The loop never names `b`: the clauses move what `at()` reads through `v`.
    tail = "static double at(const double *v, int k) { return v[k]; }\n"
    body = "for (int i = 0; i < N; i++) a[i] = at(b, i);"
    _, out = _suggest(body, ACC, tail)
    top = _top(out)
    assert top.pragma is not None
    assert "copyin(b)" in top.pragma.render()
    assert [r.function for r in top.routines] == ["at"]
    _, cpu = _suggest(body, OMP_CPU, tail)
    assert _top(cpu).pragma is not None


def test_a_callee_reading_memory_of_unknown_extent_is_refused() -> None:
    tail = (
        "static double at(const double *v, int k) { return v[(k * 7) & 63]; }\n"
        "void g(const double *restrict p, double *restrict q)\n"
        "{ for (int i = 0; i < N; i++) q[i] = at(p, i); }\n"
    )
    _, out = _suggest("for (int i = 0; i < N; i++) a[i] = 0.0;", ACC, tail)
    refused = [s for s in out if s.loop.function == "g"]
    assert [s.pragma for s in refused] == [None]
    assert any("reaches memory through `v` (given `p`" in r for r in refused[0].reasons)


def test_a_pointer_to_an_iteration_local_is_fine() -> None:
    tail = "static void put(double *o, double x) { *o = x * 2.0; }\n"
    body = """\
    for (int i = 0; i < N; i++) {
        double t;
        put(&t, b[i]);
        a[i] = t;
    }
    """
    _, out = _suggest(body, ACC, tail)
    top = _top(out)
    assert top.pragma is not None
    assert [r.function for r in top.routines] == ["put"]


ROWS = """\
#define M 64
static double rowsum(const double *r, int m)
{
    double s = 0.0;
    for (int j = 0; j < m; j++)
        s += r[j];
    return s;
}
static double peek(double *r, int m)
{
    r[0] = 1.0;
    return r[m - 1];
}
double rows[N][M], out[N];
double *ptrs[N];
void run(void)
{
    for (int i = 0; i < N; i++)
        out[i] = rowsum(rows[i], M);
    for (int i = 0; i < N; i++)
        out[i] = rowsum(ptrs[i], M);
}
"""


def _loops(text: str, opts: SuggestOptions = ACC) -> dict[int, Suggestion]:
    analysis = analyze_text(
        text, options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    found = suggest_file(analysis, opts, regions=False)
    return {s.loop.line: s for s in found if not s.inner}


def test_a_row_of_a_2d_array_a_callee_only_reads_is_copied_in() -> None:
    # `rows[i]` is the storage of row `i`: the callee reads within it, and the
    # loop's own read of the row makes the data clauses copy `rows` in.
    found = _loops(PRELUDE + ROWS)
    top = found[22]
    assert top.pragma is not None, top.reasons
    assert "copyin(rows)" in top.pragma.render()
    assert [r.function for r in top.routines] == ["rowsum"]
    # A row of pointers may point anywhere, into `out` too: the callee's read
    # through `ptrs[i]` may see another iteration's write (and the data clauses
    # would move only the pointers).
    blocked = found[24]
    assert blocked.pragma is None
    assert any("reads `ptrs[i]` through an argument" in r for r in blocked.reasons)


def test_a_callee_that_writes_a_row_it_is_handed_is_not_read_only() -> None:
    text = PRELUDE + ROWS.replace("rowsum(rows[i], M)", "peek(rows[i], M)")
    top = _loops(text)[22]
    assert top.pragma is not None, top.reasons
    assert "copy(rows)" in top.pragma.render()


def test_a_routine_s_own_loops_get_no_compute_construct() -> None:
    # `rowsum()` becomes `routine seq`: a `parallel loop` in its body would be
    # nested parallelism, which the compilers reject.
    text = PRELUDE + ROWS
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    found = suggest_file(analysis, ACC, regions=False)
    assert any(s.loop.function == "rowsum" and s.pragma for s in found)
    annotated = annotate_text(text, found)
    body = annotated.split("static double rowsum", 1)[1].split("static double peek")[0]
    assert "#pragma acc" not in body
    assert "#pragma acc routine seq\nstatic double rowsum" in annotated
