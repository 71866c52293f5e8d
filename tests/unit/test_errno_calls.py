"""A loop that may set `errno`, in a file that reads it, stays serial."""

from __future__ import annotations

from accls.analysis import analyze_text

_TEXT = """
#include <math.h>
#include <errno.h>
#include <stdio.h>
#define N 1000
double a[N], b[N];
static double safe_log(double x) { return log(x); }
int fill(void) {
  errno = 0;
  for (int i = 0; i < N; i++) b[i] = CALL(a[i]);
  return READ;
}
"""


def _loop(call: str, read: str = "errno"):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("CALL", call).replace("READ", read)
    return next(f for f in analyze_text(text).facts if f.loop.function == "fill")


def test_a_call_that_sets_errno_read_after_the_loop_is_refused() -> None:
    """log(-1) in another thread sets that thread's errno: 0 here, serially EDOM."""
    for call in ("log", "sqrtf", "safe_log"):
        fact = _loop(call)
        assert not fact.parallel, call
        assert any("may set `errno`" in o.message for o in fact.obstacles)


def test_perror_reads_errno() -> None:
    text = _TEXT.replace("CALL", "log").replace("READ", "0")
    text = text.replace("  return 0;", '  perror("fill");\n  return 0;')
    assert "perror" in text
    fact = next(f for f in analyze_text(text).facts if f.loop.function == "fill")
    assert not fact.parallel


def test_without_a_read_of_errno_or_a_call_that_sets_it_the_loop_runs() -> None:
    assert _loop("log", read="0").parallel
    assert _loop("fabs").parallel


def test_a_read_before_the_loop_sees_none_of_its_calls() -> None:
    """`perror` after a failed `fopen`, before the loop: the loop may run."""
    text = _TEXT.replace("CALL", "log").replace("READ", "0")
    text = text.replace("  errno = 0;", '  if (errno) perror("open");')
    fact = next(f for f in analyze_text(text).facts if f.loop.function == "fill")
    assert fact.parallel


def test_a_caller_that_reads_errno_after_the_call_keeps_the_loop_serial() -> None:
    text = _TEXT.replace("CALL", "log").replace("READ", "0")
    text += "int main(void) { fill(); return errno != 0; }\n"
    fact = next(f for f in analyze_text(text).facts if f.loop.function == "fill")
    assert not fact.parallel


def _after(body: str):  # type: ignore[no-untyped-def]
    """The loop of `fill` with `body` after it in place of the read."""
    text = _TEXT.replace("CALL", "log").replace("  return READ;\n", body)
    text = text.replace("#define N 1000", "#include <stdlib.h>\n#define N 1000\nint c;")
    facts = analyze_text(text).facts
    return next(f for f in facts if f.loop.function == "fill" and f.loop.var == "i")


def test_a_read_after_a_reset_sees_none_of_the_loops_calls() -> None:
    """`errno = 0; strtod(..); c += errno` after the loop: it reads the reset on."""
    fact = _after(
        "  for (int k = 0; k < 4; k++) {\n"
        "    errno = 0;\n"
        '    b[k] = strtod("1", 0);\n'
        "    c += errno;\n"
        "  }\n"
        "  return c;\n"
    )
    assert fact.parallel


def test_a_reset_under_a_condition_or_after_the_read_covers_nothing() -> None:
    for body in ("if (c) errno = 0;\n  c += errno;", "c += errno;\n  errno = 0;"):
        assert not _after(f"  {body}\n  return c;\n").parallel, body
