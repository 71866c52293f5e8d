"""Fixed elements a called function writes, on every thread of a `parallel` region.

Every label below was confirmed with clang and Archer (4 threads, several runs).
"""

from __future__ import annotations

import textwrap

import pytest
from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


def _region(callee: str, body: str = "bump();", head: str = "") -> str:
    """A file whose `parallel` region runs `body`; `callee` defined before it."""
    return (
        "#include <omp.h>\n"
        "double a[8];\n"
        "double s;\n"
        "double b[64];\n"
        f"{head}\n"
        f"{callee}\n"
        "void run(void) {\n"
        "  #pragma omp parallel num_threads(4)\n"
        "  {\n"
        f"    {body}\n"
        "  }\n"
        "}\n"
    )


_RACY = {
    "element": _region("void bump(void) { a[0] += 1.0; }"),
    "thread number stored": _region("void bump(void) { a[3] = omp_get_thread_num(); }"),
    "argument": _region("void work(int k) { a[k] += 1.0; }", "work(0);"),
    "undeferred task": _region(
        "void work(int k) {\n#pragma omp task if(0)\na[k] += 1.0;\n}", "work(0);"
    ),
    "deferred task": _region("void bump(void) {\n#pragma omp task\na[0] += 1.0;\n}"),
    "nested, macro argument": _region(
        "void inc(int k) { a[k + 1] += 1.0; }\nvoid bump(void) { inc(SLOT); }",
        head="#define SLOT 3",
    ),
    "nested scalar": _region(
        "void inc(void) { s += 1.0; }\nvoid bump(void) { inc(); }"
    ),
    "static local array": _region(
        "void bump(void) { static double c[4]; c[1] += 1.0; }"
    ),
    "master, no barrier": _region(
        "void bump(void) { a[2] += 1.0; }",
        "\n#pragma omp master\nbump();\nb[omp_get_thread_num()] = a[2];",
    ),
}

_CLEAN = {
    "critical in the callee": _region(
        "void bump(void) {\n#pragma omp critical\na[0] += 1.0;\n}"
    ),
    "critical around the call": _region(
        "void bump(void) { a[0] += 1.0; }", "\n#pragma omp critical\nbump();"
    ),
    "atomic in the callee": _region(
        "void bump(void) {\n#pragma omp atomic\na[0] += 1.0;\n}"
    ),
    "single around the call": _region(
        "void bump(void) { a[0] += 1.0; }", "\n#pragma omp single\nbump();"
    ),
    "master and barrier": _region(
        "void inc(int k) { a[k] += 1.0; }\nvoid bump(void) { inc(2); }",
        "\n#pragma omp master\nbump();\n#pragma omp barrier\n"
        "b[omp_get_thread_num()] = a[2];",
    ),
    "thread number argument": _region(
        "void work(int k) { b[k] += 1.0; }", "work(omp_get_thread_num());"
    ),
    "thread number subscript": _region(
        "void bump(void) { b[omp_get_thread_num()] = 1.0; }"
    ),
    "local array": _region(
        "double bump(void) { double c[4]; c[0] = 1.0; return c[0]; }",
        "b[omp_get_thread_num()] = bump();",
    ),
    "threadprivate": _region(
        "void bump(void) { a[0] += 1.0; }", head="#pragma omp threadprivate(a)"
    ),
    "thread guard in the callee": _region(
        "void bump(void) { if (omp_get_thread_num() == 0) a[0] += 1.0; }"
    ),
    "thread guard by &&": _region(
        "void bump(void) { (void)(omp_get_thread_num() == 0 && (a[0] = 1.0)); }"
    ),
    "call under a thread guard by &&": _region(
        "void inc(int k) { a[k] = 1.0; }\n"
        "void bump(void) { (void)(omp_get_thread_num() == 0 && (inc(2), 1)); }"
    ),
    "early return on a thread guard": _region(
        "void bump(void) {\nif (omp_get_thread_num() != 0) return;\na[0] += 1.0;\n}"
    ),
    "lock in the callee": _region(
        "void bump(void) {\nomp_set_lock(&L);\na[0] += 1.0;\nomp_unset_lock(&L);\n}",
        head="omp_lock_t L;",
    ),
}


def _call_line(src: str) -> int:
    """The line of the region's call of `bump` or `work`."""
    lines = src.splitlines()
    start = next(n for n, t in enumerate(lines) if t.startswith("void run"))
    return next(
        n + 1
        for n in range(start, len(lines))
        if "bump()" in lines[n] or "work(" in lines[n]
    )


@pytest.mark.parametrize("src", _RACY.values(), ids=_RACY.keys())
def test_fixed_write_by_every_thread_races(src: str) -> None:
    errors = _errors(src)
    assert ("ACC124", _call_line(src)) in errors, errors


@pytest.mark.parametrize("src", _CLEAN.values(), ids=_CLEAN.keys())
def test_fixed_write_kept_apart_is_clean(src: str) -> None:
    assert _errors(src) == []
