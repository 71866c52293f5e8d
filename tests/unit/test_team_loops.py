"""Loops each thread of an existing `omp parallel` region runs whole.

`omp for` shares such a loop out among the threads. Where each thread already
runs its own part (bounds from its number), fills its own copy of a variable, or
reaches the loop only on some threads, that changes the program: it lost data
(`for (i = lo; i < hi; i++)` cut again) or left each thread's array partly set.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

OMP = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)


def offers(region_body: str) -> dict[int, str | None]:
    """Each loop's line and pragma, for a region in `f` around `region_body`."""
    text = (
        "#include <omp.h>\n#include <stdlib.h>\n"
        "double a[4096], b[4096], out[64];\n"
        "void f(int n) {\n"
        "  #pragma omp parallel\n  {\n"
        f"{dedent(region_body)}"
        "  }\n}\n"
    )
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        s.loop.line: (s.pragma.render() if s.pragma else None)
        for s in suggest_file(analysis, OMP)
    }


THREAD_PARTS = {
    "bounds from the thread's number": """
    int tid = omp_get_thread_num(), nt = omp_get_num_threads();
    int lo = tid * (n / nt), hi = lo + n / nt;
    for (int i = lo; i < hi; i++) a[i] = i;
    """,
    "a cyclic share-out": """
    int tid = omp_get_thread_num(), nt = omp_get_num_threads();
    for (int i = tid; i < n; i += nt) a[i] = i;
    """,
    "each thread's own last value": """
    double last = 0;
    for (int i = 0; i < n; i++) { last = a[i] * 2; b[i] = last; }
    out[omp_get_thread_num()] = last;
    """,
    "an offset from the thread's number": """
    int lo = omp_get_thread_num() * 64;
    for (int i = 0; i < 64; i++) a[lo + i] = i;
    """,
    "only one thread reaching it": """
    int tid = omp_get_thread_num();
    if (tid == 0)
      for (int i = 0; i < n; i++) a[i] = i;
    """,
    "each thread's own array": """
    double *local = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) local[i] = i * 0.5;
    double s = local[n - 1];
    out[omp_get_thread_num()] = s;
    free(local);
    """,
    "a `single` around it": """
    #pragma omp single
    {
      for (int i = 0; i < n; i++) a[i] = i;
    }
    """,
}


@pytest.mark.parametrize("case", sorted(THREAD_PARTS))
def test_a_loop_each_thread_runs_its_own_way_gets_no_omp_for(case: str) -> None:
    found = offers(THREAD_PARTS[case])
    assert all(p is None or "omp for" not in p for p in found.values()), found


def test_a_loop_every_thread_runs_alike_is_shared_out() -> None:
    found = offers(
        """
    double t;
    for (int i = 0; i < n; i++) { t = i * 0.5; a[i] = t * 2; }
    for (int it = 0; it < 5; it++) {
      for (int i = 0; i < n; i++) b[i] = a[i] + it;
      #pragma omp barrier
    }
    """
    )
    assert found[9] == "#pragma omp for private(t)"
    assert found[11] == "#pragma omp for"


def acc_offers(region_body: str) -> dict[int, str | None]:
    """Each loop's line and OpenACC pragma, for an `acc parallel` region in `f`."""
    text = (
        "double a[4096], out[4096];\n"
        "void f(int n) {\n"
        "  #pragma acc parallel copyin(a) copyout(out)\n  {\n"
        f"{dedent(region_body)}"
        "  }\n}\n"
    )
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    return {
        s.loop.line: (s.pragma.render() if s.pragma else None)
        for s in suggest_file(analysis, opts)
    }


def test_a_gangs_own_array_in_an_acc_parallel_region_gets_no_acc_loop() -> None:
    found = acc_offers(
        """
    double local[4096];
    for (int i = 0; i < n; i++) local[i] = a[i] * 2;
    for (int i = 0; i < n; i++) out[i] = local[n - 1 - i];
    """
    )
    assert found[7] is None


def test_a_plain_loop_in_an_acc_parallel_region_still_gets_acc_loop() -> None:
    found = acc_offers("    for (int i = 0; i < n; i++) out[i] = a[i] * 2;\n")
    assert found[5] == "#pragma acc loop"


def test_a_threadprivate_array_filled_by_each_thread_gets_no_omp_for() -> None:
    text = (
        "double buf[512], a[512];\n#pragma omp threadprivate(buf)\n"
        "void f(int n) {\n"
        "  #pragma omp parallel\n  {\n"
        "    for (int i = 0; i < 512; i++) buf[i] = i * 0.5;\n"
        "    a[0] += buf[511];\n"
        "  }\n}\n"
    )
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    found = {s.loop.line: s.pragma for s in suggest_file(analysis, OMP)}
    assert found[6] is None
