"""Scalar classification: private, lastprivate, reduction, carried, induction."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import LoopFacts, ScalarClass, analyze_text
from accls.frontend import RedOp

PARAMS = "int n, int m, const double *restrict a, double *restrict b, const int *k"


def facts(body: str, params: str = PARAMS) -> tuple[LoopFacts, ...]:
    """Facts for every loop of `body`, wrapped in `double f(PARAMS)`."""
    text = f"double f({params}) {{\n{dedent(body)}\n}}\n"
    return analyze_text(text).facts


def first(body: str, params: str = PARAMS) -> LoopFacts:
    return facts(body, params)[0]


def classes(loop: LoopFacts) -> dict[str, ScalarClass]:
    return {s.name: s.cls for s in loop.scalars}


def codes(loop: LoopFacts) -> set[tuple[str, str | None]]:
    """(code, variable) of every obstacle."""
    return {(o.code, o.variable) for o in loop.obstacles}


# ----- private -------------------------------------------------------------------


def test_temporary_written_before_read_is_private() -> None:
    loop = first(
        """\
        double t;
        for (int i = 0; i < n; i++) { t = a[i] * 2; b[i] = t; }
        return 0;
        """
    )
    assert classes(loop)["t"] is ScalarClass.PRIVATE
    assert loop.parallel


def test_temporary_declared_inside_the_body_is_private_by_scope() -> None:
    loop = first("for (int i = 0; i < n; i++) { double t = a[i]; b[i] = t; }")
    (fact,) = [s for s in loop.scalars if s.name == "t"]
    assert fact.cls is ScalarClass.PRIVATE
    assert fact.declared_inside


def test_temporary_written_and_read_under_the_same_condition_is_private() -> None:
    loop = first(
        """\
        double t;
        for (int i = 0; i < n; i++) { if (a[i] > 0) { t = a[i]; b[i] = t; } }
        return 0;
        """
    )
    assert classes(loop)["t"] is ScalarClass.PRIVATE


def test_read_only_scalar_is_shared() -> None:
    loop = first("double c = 2;\nfor (int i = 0; i < n; i++) b[i] = c * a[i];")
    assert classes(loop)["c"] is ScalarClass.SHARED


# ----- lastprivate ---------------------------------------------------------------


def test_temporary_used_after_the_loop_is_lastprivate() -> None:
    loop = first(
        """\
        double last = 0;
        for (int i = 0; i < n; i++) { last = a[i]; b[i] = last; }
        return last;
        """
    )
    assert classes(loop)["last"] is ScalarClass.LASTPRIVATE
    assert loop.parallel


def test_global_written_in_every_iteration_is_lastprivate() -> None:
    text = dedent(
        """\
        double g;
        void f(int n, const double *restrict a) {
          for (int i = 0; i < n; i++) g = a[i];
        }
        """
    )
    (loop,) = analyze_text(text).facts
    assert classes(loop)["g"] is ScalarClass.LASTPRIVATE


# ----- reductions ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "name", "op"),
    [
        ("s += a[i];", "s", RedOp.ADD),
        ("s = s - a[i];", "s", RedOp.ADD),
        ("p *= a[i];", "p", RedOp.MUL),
        ("if (a[i] < lo) lo = a[i];", "lo", RedOp.MIN),
        ("hi = fmax(hi, a[i]);", "hi", RedOp.MAX),
        ("x &= k[i];", "x", RedOp.BAND),
        ("x |= k[i];", "x", RedOp.BOR),
        ("x ^= k[i];", "x", RedOp.BXOR),
        ("ok = ok && a[i] > 0;", "ok", RedOp.LAND),
        ("ok = ok || a[i] > 0;", "ok", RedOp.LOR),
    ],
)
def test_reduction_operator(statement: str, name: str, op: RedOp) -> None:
    loop = first(
        "double s = 0, p = 1, lo = 1e30, hi = -1e30; int x = 0, ok = 1;\n"
        f"for (int i = 0; i < n; i++) {{ {statement} }}\n"
        f"return {name};"
    )
    (fact,) = [s for s in loop.scalars if s.name == name]
    assert (fact.cls, fact.op) == (ScalarClass.REDUCTION, op)
    assert loop.parallel


def test_conditional_accumulation_is_a_reduction() -> None:
    loop = first(
        "double s = 0;\nfor (int i = 0; i < n; i++) { if (a[i] > 0) s += a[i]; }\n"
        "return s;"
    )
    assert classes(loop)["s"] is ScalarClass.REDUCTION


def test_accumulator_also_read_in_the_body_is_carried() -> None:
    loop = first(
        "double s = 0;\nfor (int i = 0; i < n; i++) { s += a[i]; b[i] = s; }\nreturn s;"
    )
    assert codes(loop) == {("scalar-carried", "s")}
    assert not loop.parallel


def test_mixed_operators_are_not_one_reduction() -> None:
    loop = first(
        """\
        double s = 0;
        for (int i = 0; i < n; i++) { if (a[i] > 0) s += a[i]; if (a[i] < 0) s *= 2; }
        return s;
        """
    )
    assert codes(loop) == {("scalar-carried", "s")}


def test_mixed_operators_across_if_and_else_are_not_one_reduction() -> None:
    loop = first(
        """\
        double s = 0;
        for (int i = 0; i < n; i++) { if (a[i] > 0) s += a[i]; else s *= 2; }
        return s;
        """
    )
    assert codes(loop) == {("scalar-carried", "s")}


# ----- carried scalars ---------------------------------------------------------


def test_recurrence_is_carried() -> None:
    loop = first(
        "double s = 1;\nfor (int i = 0; i < n; i++) { s = s * 2 + a[i]; b[i] = s; }\n"
        "return s;"
    )
    assert codes(loop) == {("scalar-carried", "s")}
    assert "s" not in classes(loop)
    assert not loop.parallel


def test_read_before_the_write_of_the_same_iteration_is_carried() -> None:
    loop = first(
        "double t = 0;\nfor (int i = 0; i < n; i++) { b[i] = t; t = a[i]; }\nreturn 0;"
    )
    assert codes(loop) == {("scalar-carried", "t")}


def test_write_under_a_condition_then_read_unconditionally_is_carried() -> None:
    loop = first(
        "double t = 0;\n"
        "for (int i = 0; i < n; i++) { if (a[i] > 0) t = a[i]; b[i] = t; }\n"
        "return 0;"
    )
    assert codes(loop) == {("scalar-carried", "t")}


def test_value_left_by_an_inner_loop_is_carried_by_the_outer() -> None:
    outer = first(
        """\
        double t = 0;
        for (int i = 0; i < n; i++) {
          for (int j = 0; j < m; j++) t = a[j];
          b[i] = t;
        }
        return 0;
        """
    )
    assert ("scalar-carried", "t") in codes(outer)


def test_obstacle_names_the_line_of_the_exposed_read() -> None:
    loop = first(
        """\
        double t = 0;
        for (int i = 0; i < n; i++) {
          b[i] = t;
          t = a[i];
        }
        return 0;
        """
    )
    assert [(o.code, o.line) for o in loop.obstacles] == [("scalar-carried", 4)]


# ----- conditional last value --------------------------------------------------------


def test_conditional_write_used_after_the_loop_is_refused() -> None:
    loop = first(
        """\
        double c = 0;
        for (int i = 0; i < n; i++) { if (a[i] > 0) c = a[i]; }
        return c;
        """
    )
    assert codes(loop) == {("conditional-last", "c")}
    assert not loop.parallel


def test_conditional_write_not_used_after_the_loop_is_private() -> None:
    loop = first(
        """\
        double c = 0;
        for (int i = 0; i < n; i++) { if (a[i] > 0) { c = a[i]; b[i] = c; } }
        return 0;
        """
    )
    assert codes(loop) == set()
    assert classes(loop)["c"] is ScalarClass.PRIVATE


def test_write_skipped_by_continue_and_used_after_the_loop_is_refused() -> None:
    loop = first(
        """\
        double t = 0;
        for (int i = 0; i < n; i++) {
          if (a[i] < 0) continue;
          t = a[i];
        }
        return t;
        """
    )
    assert codes(loop) == {("conditional-last", "t")}


# ----- the loop variable ----------------------------------------------------------


def test_loop_variable_is_the_induction() -> None:
    loop = first("for (int i = 0; i < n; i++) b[i] = a[i];")
    (fact,) = [s for s in loop.scalars if s.name == "i"]
    assert fact.cls is ScalarClass.INDUCTION
    assert fact.declared_inside


def test_loop_variable_modified_in_the_body_is_an_obstacle() -> None:
    loop = first("for (int i = 0; i < n; i++) { b[i] = a[i]; if (a[i] > 3) i++; }")
    assert ("induction", "i") in codes(loop)
    assert not loop.parallel


def test_loop_variable_used_after_the_loop_is_lastprivate() -> None:
    loop = first("int i;\nfor (i = 0; i < 64; i++) b[i] = a[i];\nreturn i;")
    assert classes(loop)["i"] is ScalarClass.LASTPRIVATE
    assert loop.parallel


def test_loop_variable_used_after_a_loop_that_may_be_empty_is_refused() -> None:
    # Serially an empty loop leaves `i` at 5; lastprivate copies nothing out.
    loop = first("int i = 77;\nfor (i = 5; i < n; i++) b[i] = a[i];\nreturn i;")
    assert ("conditional-last", "i") in codes(loop)
    assert not loop.parallel


def test_loop_variable_overwritten_by_a_later_loop_is_not_lastprivate() -> None:
    loop = first(
        """\
        int i;
        for (i = 0; i < n; i++) b[i] = a[i];
        for (i = 0; i < n; i++) b[i] += 1;
        return i;
        """
    )
    assert classes(loop)["i"] is ScalarClass.INDUCTION


def test_inner_loop_variable_declared_outside_is_private() -> None:
    outer = first(
        """\
        int i, j;
        for (i = 0; i < n; i++)
          for (j = 0; j < m; j++) b[i*m+j] = a[j];
        return 0;
        """
    )
    (fact,) = [s for s in outer.scalars if s.name == "j"]
    assert fact.cls is ScalarClass.PRIVATE
    assert not fact.declared_inside


def test_inner_loop_variable_declared_in_its_header_is_private_by_scope() -> None:
    outer = first(
        "for (int i = 0; i < n; i++)\n  for (int j = 0; j < m; j++) b[i*m+j] = a[j];"
    )
    (fact,) = [s for s in outer.scalars if s.name == "j"]
    assert (fact.cls, fact.declared_inside) == (ScalarClass.PRIVATE, True)


def test_inner_loop_variable_is_not_mistaken_for_a_reduction() -> None:
    outer = first(
        "int j;\nfor (int i = 0; i < n; i++)\n  for (j = 0; j < m; j++) b[j] += a[i];"
    )
    assert classes(outer)["j"] is ScalarClass.PRIVATE


def test_outer_loop_variable_is_shared_in_the_inner_loop() -> None:
    _, inner = facts(
        "for (int i = 0; i < n; i++)\n  for (int j = 0; j < m; j++) b[i*m+j] = a[j];"
    )
    assert classes(inner)["i"] is ScalarClass.SHARED


# ----- structure members --------------------------------------------------------


def test_structure_member_written_in_every_iteration_is_an_obstacle() -> None:
    loop = first(
        "for (int i = 0; i < n; i++) p->x += a[i];",
        params="int n, const double *restrict a, struct P *restrict p",
    )
    # `struct P` is not defined here, so `p->x` may also be reported as a
    # possible alias; the member write is the obstacle that always holds.
    assert ("member-write", "p->x") in codes(loop)


def test_a_loop_writing_the_library_errno_is_refused_with_its_reason() -> None:
    # `errno` is a thread-local macro: no clause can name it, and after the loop
    # it would hold the first thread's value.
    loop = first("for (int i = 0; i < n; i++) { errno = 0; b[i] = a[i]; }")
    assert ("conditional-last", "errno") in codes(loop)
    assert not loop.parallel
    assert "private" not in str(loop.scalars)


def test_a_variable_the_program_calls_errno_is_an_ordinary_scalar() -> None:
    loop = first("int errno;\nfor (int i = 0; i < n; i++) { errno = i; b[i] = errno; }")
    assert classes(loop)["errno"] is ScalarClass.PRIVATE


# ----- address taken outside the loop ----------------------------------------------


def _through_global(call: bool) -> str:
    read = "peek()" if call else "*gp"
    return (
        "double *gp;\ndouble peek(void) { return *gp; }\n"
        f"double f(int n, const double *restrict a, double *restrict b) {{\n"
        f"  double t; gp = &t;\n"
        f"  for (int i = 0; i < n; i++) {{ t = a[i]; b[i] = {read}; }}\n"
        f"  return 0;\n}}\n"
    )


@pytest.mark.parametrize("call", [True, False])
def test_scalar_whose_address_escapes_before_the_loop_is_not_privatized(
    call: bool,
) -> None:
    # `peek()` (or `*gp`) reads the original `t`, not a private copy.
    loop = analyze_text(_through_global(call)).facts[-1]
    assert not loop.parallel
    assert ("alias", "t") in codes(loop)


@pytest.mark.parametrize("call", [True, False])
def test_loop_variable_whose_address_escapes_before_the_loop_stays_serial(
    call: bool,
) -> None:
    # Each thread counts in a private `i`: `at()` (or `*gi`) reads the original.
    read = "at()" if call else "a[*gi]"
    text = (
        "int *gi;\ndouble a[100], b[100];\ndouble at(void) { return a[*gi]; }\n"
        f"void f(void) {{\n  int i; gi = &i;\n"
        f"  for (i = 0; i < 100; i++) b[i] = {read};\n}}\n"
    )
    loop = analyze_text(text).facts[-1]
    assert not loop.parallel
    assert ("alias", "i") in codes(loop)


def test_address_taken_inside_the_loop_still_privatizes() -> None:
    loop = first(
        """\
        double t;
        for (int i = 0; i < n; i++) { t = a[i]; double *p = &t; b[i] = *p; }
        return 0;
        """
    )
    assert classes(loop)["t"] is ScalarClass.PRIVATE
    assert loop.parallel
