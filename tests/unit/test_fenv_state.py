"""A program that sets or tests the floating-point environment: loops stay serial."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, ProgramSummaries, analyze, analyze_text
from accls.analysis.remote_calls import ProgramCalls, file_calls
from accls.frontend import parse_source

_TEXT = dedent(
    """\
    #include <fenv.h>
    #define N 4096
    double x[N], y[N];
    int k[N], m[N];
    int run(void) {
      BEFORE;
      for (int i = 0; i < N; i++) y[i] = x[i] / 3.0;
      for (int i = 0; i < N; i++) k[i] = m[i] * 3 + i;
      return AFTER;
    }
    """
)


def _facts(before: str = "0", after: str = "0"):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("BEFORE", before).replace("AFTER", after)
    return analyze_text(text).facts


def test_a_rounding_mode_set_before_the_loop_keeps_it_serial() -> None:
    """Worker threads keep their own rounding mode: x / 3 rounds otherwise there."""
    floating, integer = _facts(before="fesetround(FE_UPWARD)")
    assert not floating.parallel
    assert any("floating-point environment" in o.message for o in floating.obstacles)
    assert integer.parallel


def test_exception_flags_tested_after_the_loop_keep_it_serial() -> None:
    """An overflow in another thread raises that thread's flag, never tested."""
    for after in ("fetestexcept(FE_OVERFLOW)", "_mm_getcsr() & 8"):
        floating, integer = _facts(after=after)
        assert not floating.parallel, after
        assert integer.parallel, after


def test_without_the_environment_the_loops_run() -> None:
    floating, integer = _facts(before="/* fesetround(FE_UPWARD) */ 0")
    assert floating.parallel
    assert integer.parallel


def test_another_file_that_sets_the_rounding_mode() -> None:
    """main.c sets FE_UPWARD, then calls run() (this file): the index records it."""
    main = "void run(void);\nint main(void) { fesetround(0x800); run(); return 0; }\n"
    record = file_calls(parse_source(main, "main.c"), "main.c")
    program = ProgramSummaries(calls=ProgramCalls(files=(record,), sealed=True))
    text = _TEXT.replace("BEFORE", "0").replace("AFTER", "0")
    options = AnalysisOptions(dialect="omp", program=program)
    floating, integer = analyze(parse_source(text, "k.c"), options).facts
    assert not floating.parallel
    assert integer.parallel
