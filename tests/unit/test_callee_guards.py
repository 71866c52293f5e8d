"""A callee's atomic, critical, lock and conditions, kept on what a call maps.

`k(t, i)` with `t` a pointer into a shared global row: the callee's write
through `p` is the loop's write of the row. Inside the callee's `atomic` or
`critical`, or while it holds one global lock, it races no other such write;
under a condition, or after an early `return`, it may run in one iteration
only, which the caller's loop cannot prove: a warning at most. Labels of the
runnable twins (tests/fixtures/races/callee_row_*.c) were confirmed with clang
and Archer.
"""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file


def _program(callee: str, setup: str = "double *t = work[0];") -> str:
    return (
        "#include <omp.h>\n"
        "static double work[4][64];\n"
        "static omp_lock_t guard;\n"
        f"{callee}\n"
        "void run(int n) {\n"
        "#pragma omp parallel for\n"
        "  for (int i = 0; i < n; i++) {\n"
        f"    {setup}\n"
        "    k(t, i);\n"
        "  }\n"
        "}\n"
    )


_SAFE = {
    "atomic": "static void k(double *p, int n) {\n#pragma omp atomic\n p[0] += n; }",
    "critical": (
        "static void k(double *p, int n) {\n#pragma omp critical\n p[0] += n; }"
    ),
    "global lock": (
        "static void k(double *p, int n) { omp_set_lock(&guard); p[0] += n;\n"
        "  omp_unset_lock(&guard); }"
    ),
    "atomic, passed on": (
        "static void bump(double *q, int n) {\n#pragma omp atomic\n q[0] += n; }\n"
        "static void k(double *p, int n) { bump(p, n); }"
    ),
}
_MAYBE = {
    "under a branch": "static void k(double *p, int n) { if (n == 3) p[0] += n; }",
    "after an early return": (
        "static void k(double *p, int n) { if (n != 3) return; p[0] += n; }"
    ),
}
_RACY = {
    "bare": "static void k(double *p, int n) { p[0] += n; }",
    "lock released first": (
        "static void k(double *p, int n) { omp_set_lock(&guard);\n"
        "  omp_unset_lock(&guard); p[0] += n; }"
    ),
    "atomic on another element": (
        "static void k(double *p, int n) { p[1] = n;\n#pragma omp atomic\n p[1] += n; }"
    ),
}


def _levels(src: str) -> set[tuple[str, str]]:
    return {(f.code, f.level.name) for f in check_file(src, "t.c")}


@pytest.mark.parametrize("name", sorted(_SAFE))
def test_a_protected_callee_write_is_no_race(name: str) -> None:
    found = _levels(_program(_SAFE[name]))
    assert not [c for c in found if c[1] in ("ERROR", "WARNING")], found


@pytest.mark.parametrize("name", sorted(_MAYBE))
def test_a_conditional_callee_write_is_a_warning_at_most(name: str) -> None:
    found = _levels(_program(_MAYBE[name]))
    assert ("ACC102", "WARNING") in found
    assert not [c for c in found if c[1] == "ERROR"], found


@pytest.mark.parametrize("name", sorted(_RACY))
def test_an_unprotected_callee_write_still_races(name: str) -> None:
    assert ("ACC101", "ERROR") in _levels(_program(_RACY[name]))


def test_a_row_plus_an_offset_is_followed() -> None:
    src = _program(_RACY["bare"], "double *t = work[0] + 4;")
    assert ("ACC101", "ERROR") in _levels(src)
