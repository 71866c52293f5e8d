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


def _with_helper(helper: str, after: str):  # type: ignore[no-untyped-def]
    """The loop of `fill` (log) with a helper of the file called after it."""
    text = _TEXT.replace("CALL", "log").replace("  return READ;\n", after)
    text = text.replace("int fill(void) {", helper + "\nint fill(void) {")
    return next(f for f in analyze_text(text).facts if f.loop.function == "fill")


def test_a_function_of_the_file_called_after_the_loop_that_reads_errno() -> None:
    """`report()` after the loop reads errno: serially the failing call's, here 0."""
    reads = (
        "static int failed(void) { return errno != 0; }",
        'static void report(void) { if (errno) printf("%d\\n", errno); }',
        'static void say(void) { perror("fill"); }',
        "static int failed(void) { return errno != 0; }\n"
        "static int check(void) { return failed(); }",
    )
    calls = (
        "  return failed();\n",
        "  report();\n  return 0;\n",
        "  say();\n  return 0;\n",
        "  return check();\n",
    )
    for helper, after in zip(reads, calls, strict=True):
        fact = _with_helper(helper, after)
        assert not fact.parallel, helper
        assert any("may set `errno`" in o.message for o in fact.obstacles)


def test_a_helper_that_resets_errno_first_or_never_reads_it_leaves_the_loop() -> None:
    helpers = (
        ("static int failed(void) { errno = 0; return errno != 0; }", "failed()"),
        ("static int twice(int x) { return 2 * x; }", "twice(1)"),
    )
    for helper, call in helpers:
        assert _with_helper(helper, f"  return {call};\n").parallel, helper


def test_atoi_and_the_trigonometric_functions_set_errno() -> None:
    """glibc's atoi/atol are strtol (ERANGE); sin/cos/tan of an infinity set EDOM."""
    for call in ("atoi", "atol", "atoll", "sin", "cosf", "tanl"):
        fact = _loop(call)
        assert not fact.parallel, call
        assert any("may set `errno`" in o.message for o in fact.obstacles), call
    assert _loop("fabs").parallel


def test_a_later_iteration_that_reads_errno_keeps_the_loop_serial() -> None:
    """errno stays set: serially every later `failed()` sees the failure."""
    text = _TEXT.replace("CALL", "log").replace("  return READ;\n", "  return 0;\n")
    text = text.replace(
        "int fill(void) {",
        "static int failed(void) { return errno != 0; }\nint c[N];\nint fill(void) {",
    ).replace("b[i] = log(a[i]);", "{ b[i] = log(a[i]); c[i] = failed(); }")
    assert "c[i] = failed()" in text
    fact = next(f for f in analyze_text(text).facts if f.loop.function == "fill")
    assert not fact.parallel
    assert any("may set `errno`" in o.message for o in fact.obstacles)
    quiet = text.replace("c[i] = failed();", "c[i] = 1;")
    fact = next(f for f in analyze_text(quiet).facts if f.loop.function == "fill")
    assert fact.parallel


def test_a_read_before_the_loop_in_a_loop_around_it_comes_after_it() -> None:
    """The next pass of the `for` around it reads what this pass's calls left."""
    text = _TEXT.replace("CALL", "log").replace("  return READ;\n", "  return c;\n")
    text = text.replace("int fill(void) {", "int c;\nint fill(void) {")
    text = text.replace(
        "  for (int i = 0; i < N; i++) b[i] = log(a[i]);\n",
        "  for (int t = 0; t < 3; t++) {\n"
        "    c += errno != 0;\n"
        "    for (int i = 0; i < N; i++) b[i] = log(a[i]);\n"
        "  }\n",
    )
    assert "c += errno" in text
    fact = next(f for f in analyze_text(text).facts if f.loop.var == "i")
    assert not fact.parallel
    reset = text.replace(
        "    c += errno != 0;\n", "    errno = 0;\n    c += errno != 0;\n"
    )
    fact = next(f for f in analyze_text(reset).facts if f.loop.var == "i")
    assert fact.parallel
