"""A loop using thread-local storage stays serial: each thread has its own copy."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze_text

_TEXT = dedent(
    """\
    #define N 1000
    DECL
    static double plain[N];
    double a[N];
    static double peek(int i) { return buf[i]; }
    void run(void) {
      for (int i = 0; i < N; i++) buf[i] = a[i] * 2;
      for (int i = 0; i < N; i++) a[i] = peek(i) + 1;
      for (int i = 0; i < N; i++) plain[i] = a[i] + 1;
    }
    """
)


def _facts(decl: str):  # type: ignore[no-untyped-def]
    return analyze_text(_TEXT.replace("DECL", decl)).facts


def test_thread_local_arrays_keep_their_loops_serial() -> None:
    """A worker's writes go to its copy; the serial reader sees the master's."""
    for decl in (
        "static __thread double buf[N];",
        "_Thread_local double buf[N], other = 0;",
        "static _Thread_local double other, buf[N] = {0};",
        "static double buf[N];\n#pragma omp threadprivate(buf)",
    ):
        writes, through_callee, plain = _facts(decl)
        assert not writes.parallel, decl
        assert any("thread-local" in o.message for o in writes.obstacles)
        assert not through_callee.parallel, decl
        assert plain.parallel, decl


def test_a_shared_array_of_that_name_runs() -> None:
    writes, through_callee, plain = _facts("static double buf[N];")
    assert writes.parallel
    assert through_callee.parallel
    assert plain.parallel


def test_a_local_of_the_name_is_the_loops_own() -> None:
    text = _TEXT.replace("DECL", "static __thread double buf[N];").replace(
        "      for (int i = 0; i < N; i++) plain[i]",
        "      double *buf = plain;\n      for (int i = 0; i < N; i++) buf[i]",
    )
    first, _, last = analyze_text(text).facts
    assert not any("thread-local" in o.message for o in last.obstacles)
    assert not first.parallel  # before the local: still the thread-local one
