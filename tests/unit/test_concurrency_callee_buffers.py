"""What a callee does with a buffer or a global array every iteration reaches.

One scratch buffer handed to a writing callee by every iteration, one constant
element of a global written on every call, and per-thread rows shorter than the
callee fills are races (ACC124); a callee's update of a global array at an
element the data chooses is the in-loop histogram's warning (ACC109), naming the
callee. The labels of the runnable shapes (scratch, element and row programs
with a `main`) were confirmed with clang and Archer (4 threads, 3 runs each).
"""

from __future__ import annotations

import textwrap

import pytest
from accls.analysis.checks import check_file


def _codes(src: str) -> list[tuple[str, str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.level.name, f.span.line) for f in found]


def _scratch(callee: str, setup: str, clause: str = "") -> str:
    """A region whose loop hands `t`, set up per thread by `setup`, to `k`."""
    return (
        "#include <omp.h>\n"
        "#include <stdlib.h>\n"
        "#define T 8\n"
        "static double work[T][64];\n"
        f"{callee}\n"
        "void run(int n) {\n"
        f"#pragma omp parallel num_threads(4) {clause}\n"
        "  {\n"
        f"    {setup}\n"
        "#pragma omp for\n"
        "    for (int i = 0; i < n; i++)\n"
        "      k(t, i);\n"
        "  }\n"
        "}\n"
    )


_WRITES = "static void k(double *p, int n) { p[0] = n; }"
_CHAIN = (
    "static void fill(double *q, int n) { q[0] = n;\n"
    "  for (int j = 1; j < 64; j++) q[j] = q[j - 1] + 1.0; }\n"
    "static double k(double *p, int n) { fill(p, n); return p[5]; }"
)

_SHARED = {
    "row zero": _scratch(_WRITES, "double *t = work[0];"),
    "handed on to a second callee": _scratch(_CHAIN, "double *t = work[2];"),
    "address of an element": _scratch(_WRITES, "double *t = &work[1][0];"),
    "macro row": _scratch(_WRITES, "double *t = work[ROW];").replace(
        "#define T 8", "#define T 8\n#define ROW 3"
    ),
}

_APART = {
    "row of the thread": _scratch(_WRITES, "double *t = work[omp_get_thread_num()];"),
    "thread number stored": _scratch(
        _WRITES, "int tid = omp_get_thread_num(); double *t = work[tid];"
    ),
    "fresh allocation": _scratch(_WRITES, "double *t = malloc(64 * sizeof(double));"),
    "privatized array": _scratch(_WRITES, "double *t = work[0];", "private(work)"),
    "write under a branch": _scratch(
        "static void k(double *p, int n) { if (n == 3) p[0] = n; }",
        "double *t = work[0];",
    ),
    "write after an early return": _scratch(
        "static void k(double *p, int n) { if (n > 0) return; p[0] = n; }",
        "double *t = work[0];",
    ),
    "pointer moved first": _scratch(
        "static void k(double *p, int n) { p += n; p[0] = n; }",
        "double *t = work[0];",
    ),
    "read only": _scratch(
        "static double k(double *p, int n) { return p[0] + n; }",
        "double *t = work[0];",
    ),
    "pointer set twice": _scratch(
        _WRITES, "double *t = work[0]; t = work[omp_get_thread_num()];"
    ),
}


@pytest.mark.parametrize("name", sorted(_SHARED))
def test_one_buffer_for_every_iteration_races(name: str) -> None:
    src = _SHARED[name]
    call = src.splitlines().index("      k(t, i);") + 1
    assert ("ACC124", "ERROR", call) in _codes(src)


@pytest.mark.parametrize("name", sorted(_APART))
def test_a_buffer_per_thread_or_no_fixed_write_is_no_acc124(name: str) -> None:
    assert not [c for c in _codes(_APART[name]) if c[0] == "ACC124"]


def test_the_message_names_the_buffer_and_the_callee_that_writes_it() -> None:
    found = check_file(_SHARED["handed on to a second callee"], "t.c")
    (race,) = [f for f in found if f.code == "ACC124"]
    assert "`work[2]`" in race.message
    assert "hands it on to `fill`" in race.message


def _histogram(callee: str, call: str, head: str = "") -> str:
    """A parallel loop over `n` values that calls `call` once per iteration."""
    return (
        "#include <omp.h>\n"
        "#define NB 32\n"
        "static long hist[NB];\n"
        f"{head}\n"
        "static int bin_of(double x) { int b = (int)(x * NB); return b < 0 ? 0 : b; }\n"
        f"{callee}\n"
        "void run(const double *x, int n) {\n"
        "#pragma omp parallel for\n"
        "  for (int i = 0; i < n; i++) {\n"
        f"    {call}\n"
        "  }\n"
        "}\n"
    )


_COUNT = "static void count(int b) { hist[b]++; }"
_DATA_INDEX = {
    "bin from a call": _histogram(_COUNT, "count(bin_of(x[i]));"),
    "bin from an array": _histogram(
        "static void count(const double *x, int i) { int c = (int)x[i] % NB;\n"
        "  hist[c] += 1; }",
        "count(x, i);",
    ),
    "through a second callee": _histogram(
        _COUNT + "\nstatic void add(double v) { count(bin_of(v)); }", "add(x[i]);"
    ),
}

_OWN_OR_PROTECTED = {
    "atomic in the callee": _histogram(
        "static void count(int b) {\n#pragma omp atomic\n  hist[b]++;\n}",
        "count(bin_of(x[i]));",
    ),
    "critical around the call": _histogram(
        _COUNT, "\n#pragma omp critical\n    count(bin_of(x[i]));"
    ),
    "the iteration's own element": _histogram(_COUNT, "count(i % NB);"),
    "a row per thread": _histogram(
        "static void count(int t, int b) { part[t][b]++; }",
        "count(omp_get_thread_num(), bin_of(x[i]));",
        "static long part[8][NB];",
    ),
    "threadprivate histogram": _histogram(
        _COUNT, "count(bin_of(x[i]));", "#pragma omp threadprivate(hist)"
    ),
}


@pytest.mark.parametrize("name", sorted(_DATA_INDEX))
def test_a_callee_update_at_a_data_index_is_the_histogram_warning(name: str) -> None:
    found = check_file(_DATA_INDEX[name], "t.c")
    (warned,) = [f for f in found if f.code == "ACC109"]
    assert warned.level.name == "WARNING"
    assert "in `count()`" in warned.message
    assert not [f for f in found if f.code == "ACC110" and "count" in f.message]


@pytest.mark.parametrize("name", sorted(_OWN_OR_PROTECTED))
def test_a_protected_or_own_element_update_is_no_warning(name: str) -> None:
    assert not [c for c in _codes(_OWN_OR_PROTECTED[name]) if c[0] == "ACC109"]


def _element(callee: str, body: str = "c(i);", clause: str = "") -> str:
    """A loop of unknown length whose body `body` calls `c`."""
    return (
        "#include <omp.h>\n"
        "#define NB 32\n"
        "#define SLOT 3\n"
        "static long hist[NB];\n"
        "omp_lock_t lk;\n"
        f"{callee}\n"
        "void run(int n) {\n"
        f"#pragma omp parallel for {clause}\n"
        "  for (int i = 0; i < n; i++) {\n"
        f"    {body}\n"
        "  }\n"
        "}\n"
    )


_ONE_ELEMENT = {
    "constant element": _element("static void c(int b) { hist[0]++; }"),
    "constant argument": _element("static void c(int b) { hist[b] += 2; }", "c(SLOT);"),
    "through a second callee": _element(
        "static void put(int k) { hist[k + 1] = k; }\n"
        "static void c(int b) { put(SLOT); }"
    ),
}

_NOT_ONE_ELEMENT = {
    "atomic": _element("static void c(int b) {\n#pragma omp atomic\n  hist[0]++;\n}"),
    "critical around the call": _element(
        "static void c(int b) { hist[0]++; }", "\n#pragma omp critical\n    c(i);"
    ),
    "lock in the callee": _element(
        "static void c(int b) {\n  omp_set_lock(&lk);\n  hist[0]++;\n"
        "  omp_unset_lock(&lk);\n}"
    ),
    "lock around the call": _element(
        "static void c(int b) { hist[0]++; }",
        "omp_set_lock(&lk); c(i); omp_unset_lock(&lk);",
    ),
    "one iteration's branch": _element(
        "static void c(int b) { if (b == 0) hist[0]++; }"
    ),
    "call under a branch": _element(
        "static void c(int b) { hist[0]++; }", "if (i == 0) c(i);"
    ),
    "early return": _element("static void c(int b) { if (b) return; hist[0]++; }"),
    "threadprivate": _element(
        "static void c(int b) { hist[0]++; }\n#pragma omp threadprivate(hist)"
    ),
    "array reduction": _element(
        "static void c(int b) { hist[0]++; }", clause="reduction(+:hist)"
    ),
    "the iteration's element": _element(
        "static void c(int b) { hist[b] = 1; }", "c(i % NB);"
    ),
    "a local array": _element("static void c(int b) { long hist[4]; hist[0] = b; }"),
}


@pytest.mark.parametrize("name", sorted(_ONE_ELEMENT))
def test_a_callee_writing_one_global_element_every_iteration_races(name: str) -> None:
    src = _ONE_ELEMENT[name]
    lines = src.splitlines()
    call = 1 + next(k for k, t in enumerate(lines) if t.startswith("    c("))
    (race,) = [f for f in check_file(src, "t.c") if f.code == "ACC124"]
    assert race.level.name == "ERROR"
    assert race.span.line == call
    assert "`c`" in race.message


@pytest.mark.parametrize("name", sorted(_NOT_ONE_ELEMENT))
def test_a_protected_or_varying_element_is_no_race(name: str) -> None:
    assert not [c for c in _codes(_NOT_ONE_ELEMENT[name]) if c[1] == "ERROR"]


def _rows(setup: str, callee: str = "", threads: str = "4") -> str:
    """A region whose loop hands each thread's row `mine` of `work` to `fill`."""
    callee = callee or (
        "static void fill(double *buf, int m) {\n"
        "  for (int k = 0; k < m; k++)\n"
        "    buf[k] = k;\n"
        "}"
    )
    return (
        "#include <omp.h>\n"
        "#define M 64\n"
        "static double work[8 * M];\n"
        f"{callee}\n"
        "void run(int n) {\n"
        f"#pragma omp parallel num_threads({threads})\n"
        "  {\n"
        f"    {setup}\n"
        "#pragma omp for schedule(static, 1)\n"
        "    for (int r = 0; r < n; r++)\n"
        "      fill(mine, M);\n"
        "  }\n"
        "}\n"
    )


_OVERLAPPING_ROWS = {
    "one element short": _rows(
        "int tid = omp_get_thread_num(); double *mine = work + tid * (M - 1);"
    ),
    "the call in the offset": _rows("double *mine = &work[omp_get_thread_num() * 32];"),
}

_SEPARATE_ROWS = {
    "full rows": _rows(
        "int tid = omp_get_thread_num(); double *mine = work + tid * M;"
    ),
    "wider rows": _rows("double *mine = work + omp_get_thread_num() * (M + 1);"),
    "half the row written": _rows(
        "double *mine = work + omp_get_thread_num() * 32;",
        "static void fill(double *buf, int m) {\n"
        "  for (int k = 0; k < 32; k++)\n"
        "    buf[k] = m;\n"
        "}",
    ),
    "write under a branch": _rows(
        "double *mine = work + omp_get_thread_num() * 32;",
        "static void fill(double *buf, int m) {\n"
        "  for (int k = 0; k < m; k++)\n"
        "    if (k < 32) buf[k] = k;\n"
        "}",
    ),
    "one thread": _rows(
        "double *mine = work + omp_get_thread_num() * 32;", threads="1"
    ),
}


@pytest.mark.parametrize("name", sorted(_OVERLAPPING_ROWS))
def test_thread_rows_shorter_than_the_callee_writes_race(name: str) -> None:
    found = check_file(_OVERLAPPING_ROWS[name], "t.c")
    (race,) = [f for f in found if f.code == "ACC124"]
    assert race.level.name == "ERROR"
    assert "writes 64 elements" in race.message


@pytest.mark.parametrize("name", sorted(_SEPARATE_ROWS))
def test_thread_rows_apart_are_no_race(name: str) -> None:
    assert not [c for c in _codes(_SEPARATE_ROWS[name]) if c[1] == "ERROR"]
