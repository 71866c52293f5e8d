"""The front end: C text to loops, references, declarations and pragmas."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.frontend import (
    AccessKind,
    ExitKind,
    Loop,
    Poly,
    RedOp,
    Ref,
    SourceFile,
    Var,
    parse_source,
)

PARAMS = "int n, int m, int k, int *idx, double *a, double *b, double *c"


def parse(src: str) -> SourceFile:
    return parse_source(dedent(src))


def in_function(body: str, params: str = PARAMS) -> SourceFile:
    """`body` as the body of `void f(PARAMS)`."""
    return parse_source(f"void f({params}) {{\n{dedent(body)}\n}}\n")


def loop_of(body: str, params: str = PARAMS) -> Loop:
    """The first loop nest of `body`."""
    return in_function(body, params).nests[0]


def local(source: SourceFile, name: str) -> Var:
    """The declaration of `name` in the first function."""
    var = source.functions[0].lookup(name)
    assert var is not None, name
    return var


def refs_to(loop: Loop, name: str) -> list[Ref]:
    return [r for r in loop.refs if r.name == name]


def reductions_of(loop: Loop, name: str) -> set[RedOp | None]:
    return {r.reduction for r in refs_to(loop, name)}


def exit_kinds(loop: Loop) -> list[ExitKind]:
    return [e.kind for e in loop.exits]


# ----- where loops are found --------------------------------------------------


def test_loops_are_found_in_every_function() -> None:
    source = parse(
        """\
        void f(int n, double *a) { for (int i = 0; i < n; i++) a[i] = 0; }
        void g(int n, double *a) { for (int j = 0; j < n; j++) a[j] = 1; }
        """
    )
    assert [(loop.function, loop.var) for loop in source.nests] == [
        ("f", "i"),
        ("g", "j"),
    ]


def test_loops_inside_nested_blocks_are_found() -> None:
    source = in_function(
        """\
        if (n > 0) {
          {
            while (m) {
              for (int i = 0; i < n; i++) a[i] = 0;
              m--;
            }
          }
        }
        """
    )
    assert [loop.var for loop in source.loops()] == ["i"]


def test_loops_in_both_ifdef_branches_are_found() -> None:
    source = in_function(
        """\
        #ifdef USE_FAST
          for (int i = 0; i < n; i++) a[i] = 0;
        #else
          for (int j = 0; j < n; j++) a[j] = 1;
        #endif
        """
    )
    assert [(loop.var, loop.line) for loop in source.nests] == [("i", 3), ("j", 5)]


def test_unbraced_nest_is_one_perfect_nest() -> None:
    outer = loop_of(
        """\
        for (int i = 0; i < n; i++)
          for (int j = 0; j < m; j++)
            c[i*m+j] = 0;
        """
    )
    assert outer.perfect
    assert [child.var for child in outer.children] == ["j"]
    assert outer.children[0].children == ()


def test_body_with_a_statement_before_the_inner_loop_is_not_perfect() -> None:
    outer = loop_of(
        """\
        for (int i = 0; i < n; i++) {
          a[i] = 0;
          for (int j = 0; j < m; j++) c[i*m+j] = 0;
        }
        """
    )
    assert not outer.perfect


def test_one_line_nest_keeps_both_loops_and_their_columns() -> None:
    outer = loop_of("for (int i = 0; i < n; i++) for (int j = 0; j < i; j++) a[j] = 0;")
    inner = outer.children[0]
    assert (outer.line, outer.column) == (2, 1)
    assert (inner.line, inner.column) == (2, 29)


def test_line_is_that_of_the_for_keyword_not_of_the_pragma_above() -> None:
    loop = loop_of(
        """\
        #pragma acc parallel loop
          for (int i = 0; i < n; i++)
            a[i] = 0;
        """
    )
    assert (loop.line, loop.column) == (3, 3)


def test_nests_are_outermost_loops_in_source_order() -> None:
    source = in_function(
        """\
        for (int i = 0; i < n; i++)
          for (int j = 0; j < n; j++) a[j] = 0;
        for (int k2 = 0; k2 < n; k2++) b[k2] = 0;
        """
    )
    assert [loop.var for loop in source.nests] == ["i", "k2"]
    assert [loop.var for loop in source.loops()] == ["i", "j", "k2"]


# ----- loop headers -------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "lower", "upper", "op", "step", "trip"),
    [
        ("for (int i = 0; i < n; i++)", "0", "n", "<", 1, "n"),
        ("for (int i = 0; i <= n; i++)", "0", "n", "<=", 1, "n + 1"),
        ("for (int i = n; i > 0; i--)", "n", "0", ">", -1, "n"),
        ("for (int i = n - 1; i >= 0; i--)", "n - 1", "0", ">=", -1, "n"),
        ("for (int i = 0; i < n; i += 2)", "0", "n", "<", 2, "(n + 1) / 2"),
        ("for (int i = 0; i <= n; i += 2)", "0", "n", "<=", 2, "(n + 2) / 2"),
        ("for (int i = n; i >= 0; i -= 2)", "n", "0", ">=", -2, "(n + 2) / 2"),
        ("for (int i = 0; i < n; i = i + 3)", "0", "n", "<", 3, "(n + 2) / 3"),
        ("for (i = 1; n > i; ++i)", "1", "n", "<", 1, "n - 1"),
        ("for (int i = 2; i < n - 1; i++)", "2", "n - 1", "<", 1, "n - 3"),
        ("for (int i = 0; i < n; i += k)", "0", "n", "<", None, None),
    ],
)
def test_header_bounds_step_and_trip_count(
    header: str, lower: str, upper: str, op: str, step: int | None, trip: str | None
) -> None:
    loop = loop_of(f"int i;\n{header} a[0] = 0;")
    assert loop.var == "i"
    assert (loop.lower_text, loop.upper_text, loop.cond_op) == (lower, upper, op)
    assert (loop.step, loop.trip_count) == (step, trip)


def test_bounds_are_polynomials() -> None:
    loop = loop_of("for (int i = 1; i < 2*n + m; i++) a[i] = 0;")
    assert loop.lower == Poly.const(1)
    assert loop.upper == Poly.sym("n").scale(2) + Poly.sym("m")


def test_loop_variable_declared_in_the_header() -> None:
    assert loop_of("for (int i = 0; i < n; i++) a[i] = 0;").var_declared


def test_loop_variable_declared_before_the_loop() -> None:
    assert not loop_of("int i;\nfor (i = 0; i < n; i++) a[i] = 0;").var_declared


def test_endless_loop_has_no_variable_or_trip_count() -> None:
    loop = loop_of("for (;;) { a[0] = 0; }")
    assert (loop.var, loop.step, loop.trip_count) == (None, None, None)


def test_bound_written_in_the_body_is_volatile() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) { a[i] = 0; n--; }")
    assert loop.volatile_bounds == ("n",)


# ----- references -----------------------------------------------------------------


def test_linearized_subscript_is_a_polynomial() -> None:
    loop = loop_of(
        "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) a[i*n+j] = 0;"
    )
    (ref,) = refs_to(loop, "a")
    (sub,) = ref.subscripts
    assert sub.poly == Poly.sym("i") * Poly.sym("n") + Poly.sym("j")
    assert not sub.indirect


def test_macro_accessor_subscript_expands_to_its_polynomial() -> None:
    source = parse(
        """\
        #define IDX(i,j) ((i)*n+(j))
        void f(int n, double *a) {
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
              a[IDX(i,j)] = 0;
        }
        """
    )
    (ref,) = refs_to(source.nests[0], "a")
    (sub,) = ref.subscripts
    assert sub.text == "IDX(i,j)"
    assert sub.poly is not None
    assert sub.poly.render() == "i*n + j"


def test_macro_accessor_arguments_are_substituted_simultaneously() -> None:
    source = parse(
        """\
        #define IDX(i,j) ((i)*n+(j))
        void f(int n, double *a) {
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
              a[IDX(j, i)] = 0;
        }
        """
    )
    (ref,) = refs_to(source.nests[0], "a")
    assert ref.subscripts[0].poly == Poly.sym("j") * Poly.sym("n") + Poly.sym("i")


def test_subscript_reading_another_array_is_indirect() -> None:
    (ref,) = refs_to(loop_of("for (int i = 0; i < n; i++) a[idx[i]] = 0;"), "a")
    assert ref.subscripts[0].indirect
    assert ref.subscripts[0].poly is None


def test_two_dimensional_reference_has_two_subscripts() -> None:
    loop = loop_of(
        "for (int i = 0; i < n; i++) A[i][i+1] = 0;",
        params="int n, double A[100][100]",
    )
    (ref,) = refs_to(loop, "A")
    assert [s.text for s in ref.subscripts] == ["i", "i+1"]


def test_non_polynomial_subscript_has_no_poly() -> None:
    (ref,) = refs_to(loop_of("for (int i = 0; i < n; i++) a[i / 2] = 0;"), "a")
    assert ref.subscripts[0].poly is None


def test_plain_assignment_writes_and_reads() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) a[i] = b[i];")
    assert [r.kind for r in refs_to(loop, "a")] == [AccessKind.WRITE]
    assert [r.kind for r in refs_to(loop, "b")] == [AccessKind.READ]


def test_right_hand_side_is_recorded_before_the_target() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) a[i] = b[i];")
    arrays = [r.name for r in loop.refs if r.subscripts]
    assert arrays == ["b", "a"]


def test_compound_assignment_is_an_update() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) a[i] += b[i];")
    assert [r.kind for r in refs_to(loop, "a")] == [AccessKind.UPDATE]


def test_increment_is_an_update() -> None:
    loop = loop_of("int s = 0;\nfor (int i = 0; i < n; i++) s++;")
    assert [r.kind for r in refs_to(loop, "s")] == [AccessKind.UPDATE]


def test_cast_is_not_a_call() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) a[i] = (double)i;")
    assert loop.calls == ()
    assert [r.kind for r in refs_to(loop, "i") if not r.subscripts][-2:] == [
        AccessKind.READ,
        AccessKind.UPDATE,
    ]


def test_typedef_cast_of_parenthesized_value_is_not_a_call() -> None:
    source = parse(
        """\
        typedef double DATA_TYPE;
        void f(int n, double *a) {
          for (int i = 0; i < n; i++) a[i] = (DATA_TYPE)(i) + foo(i);
        }
        """
    )
    assert [c.name for c in source.nests[0].calls] == ["foo"]


def test_call_inside_loop_is_recorded() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) a[i] = sqrt(b[i]);")
    assert [c.name for c in loop.calls] == ["sqrt"]


def test_references_in_a_guarded_branch_are_guarded() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) { if (b[i] > 0) a[i] = 1; }")
    assert [r.guarded for r in refs_to(loop, "a")] == [True]
    assert [r.guarded for r in refs_to(loop, "b")] == [False]


def test_dereference_is_marked() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) *(a + i) = 0;")
    (ref,) = refs_to(loop, "a")
    assert ref.deref
    assert ref.subscripts[0].poly == Poly.sym("i")


# ----- declarations -----------------------------------------------------------------


def test_restrict_qualified_parameters() -> None:
    source = parse(
        "void f(double *restrict x, double * __restrict__ y, double *z) { }\n"
    )
    params = {p.name: p for p in source.functions[0].params}
    assert (params["x"].restrict, params["y"].restrict, params["z"].restrict) == (
        True,
        True,
        False,
    )
    assert all(p.scope == "param" and p.pointers == 1 for p in params.values())


def test_array_parameter_declared_through_a_known_macro() -> None:
    source = parse(
        """\
        #define ARRAY_2D(name, d1, d2) name[d1][d2]
        void f(int n, DATA_TYPE ARRAY_2D(A, N, M)) { }
        """
    )
    var = local(source, "A")
    assert (var.type, var.dims, var.unknown_shape) == ("DATA_TYPE", ("N", "M"), False)


def test_array_parameter_declared_through_an_unknown_macro() -> None:
    source = parse("void f(int n, DATA_TYPE ARRAY_2D(A, N, M)) { }\n")
    var = local(source, "A")
    assert var.unknown_shape
    assert var.is_array


def test_locals_and_globals_are_declared_with_their_scope() -> None:
    source = parse(
        """\
        double g[100];
        void f(int n) { double t[4]; int u; }
        """
    )
    fn = source.functions[0]
    assert [(v.name, v.scope, v.dims) for v in source.globals] == [
        ("g", "global", ("100",))
    ]
    assert [(v.name, v.scope) for v in fn.locals] == [("t", "local"), ("u", "local")]


def test_pointer_initialised_by_malloc_is_fresh() -> None:
    source = in_function("double *p = malloc(n * sizeof *p);")
    assert local(source, "p").fresh


def test_pointer_assigned_a_cast_calloc_later_is_fresh() -> None:
    source = in_function("double *q;\nq = (double *)calloc(n, sizeof(double));")
    assert local(source, "q").fresh


def test_pointer_to_a_parameter_is_not_fresh() -> None:
    source = in_function("double *r = a;")
    assert not local(source, "r").fresh


def test_pointer_reassigned_from_a_parameter_is_not_fresh() -> None:
    source = in_function("double *p = malloc(8);\np = a;")
    assert not local(source, "p").fresh


def test_function_writing_through_a_pointer_parameter_is_recorded() -> None:
    source = parse("void f(int n, double *a) { a[0] = n; }\n")
    assert source.functions[0].writes_nonlocal == ("a",)


# ----- reductions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "name", "op"),
    [
        ("s += a[i];", "s", RedOp.ADD),
        ("s = s + a[i];", "s", RedOp.ADD),
        ("s = a[i] + s;", "s", RedOp.ADD),
        ("s = s - a[i];", "s", RedOp.ADD),
        ("s -= a[i];", "s", RedOp.ADD),
        ("s++;", "s", RedOp.ADD),
        ("s *= a[i];", "s", RedOp.MUL),
        ("s = s * a[i];", "s", RedOp.MUL),
        ("if (a[i] > m) m = a[i];", "m", RedOp.MAX),
        ("if (m < a[i]) m = a[i];", "m", RedOp.MAX),
        ("if (a[i] < m) m = a[i];", "m", RedOp.MIN),
        ("m = fmax(m, a[i]);", "m", RedOp.MAX),
        ("m = fmin(a[i], m);", "m", RedOp.MIN),
        ("m = a[i] > m ? a[i] : m;", "m", RedOp.MAX),
        ("m = m > a[i] ? m : a[i];", "m", RedOp.MAX),
        ("m = a[i] < m ? a[i] : m;", "m", RedOp.MIN),
        ("ok = ok && a[i] > 0;", "ok", RedOp.LAND),
        ("ok = ok || a[i] > 0;", "ok", RedOp.LOR),
        ("x &= idx[i];", "x", RedOp.BAND),
        ("x |= idx[i];", "x", RedOp.BOR),
        ("x ^= idx[i];", "x", RedOp.BXOR),
        ("x = x & idx[i];", "x", RedOp.BAND),
        ("x = x ^ idx[i];", "x", RedOp.BXOR),
    ],
)
def test_reduction_pattern_is_tagged(statement: str, name: str, op: RedOp) -> None:
    loop = loop_of(
        "double s = 0, m = 0; int ok = 1, x = 0;\n"
        f"for (int i = 0; i < n; i++) {{ {statement} }}"
    )
    assert reductions_of(loop, name) == {op}


@pytest.mark.parametrize(
    "statement",
    [
        "s = a[i] - s;",
        "s = s * 2 + a[i];",
        "s += s;",
        "s = s + a[i] + s;",
        "s = s / a[i];",
        "if (a[i] > s) s = a[i]; else s = 0;",
        "if (a[i] > s) s = b[i];",
        "s = fmax(s, s);",
    ],
)
def test_non_reduction_is_not_tagged(statement: str) -> None:
    loop = loop_of(f"double s = 0;\nfor (int i = 0; i < n; i++) {{ {statement} }}")
    assert reductions_of(loop, "s") == {None}


# ----- pragmas and regions ----------------------------------------------------------


def test_pragma_above_a_loop_is_attached_to_it() -> None:
    loop = loop_of(
        """\
        #pragma acc parallel loop copyin(a[0:n])
        for (int i = 0; i < n; i++) b[i] = a[i];
        """
    )
    (pragma,) = loop.pragmas
    assert (pragma.dialect, pragma.name) == ("acc", "parallel loop")
    assert [(c.name, c.args) for c in pragma.clauses] == [("copyin", "a[0:n]")]
    assert loop.regions == ()


def test_comment_between_pragma_and_loop_keeps_it_attached() -> None:
    loop = loop_of(
        """\
        #pragma omp parallel for
        /* the main loop */
        for (int i = 0; i < n; i++) b[i] = a[i];
        """
    )
    assert [p.name for p in loop.pragmas] == ["parallel for"]


def test_pragma_above_a_statement_is_not_attached_to_a_later_loop() -> None:
    loop = loop_of(
        """\
        #pragma omp barrier
        m = 0;
        for (int i = 0; i < n; i++) b[i] = a[i];
        """
    )
    assert loop.pragmas == ()
    assert loop.regions == ()


def test_data_region_encloses_the_loops_in_its_block() -> None:
    loop = loop_of(
        """\
        #pragma acc data copyin(a[0:n])
        {
          for (int i = 0; i < n; i++) b[i] = a[i];
        }
        """
    )
    (region,) = loop.regions
    assert region.directive.name == "data"
    assert [(c.name, c.args) for c in region.directive.clauses] == [
        ("copyin", "a[0:n]")
    ]
    assert loop.pragmas == ()


def test_data_region_ends_with_its_block() -> None:
    source = in_function(
        """\
        #pragma acc data copyin(a[0:n])
        {
          for (int i = 0; i < n; i++) b[i] = a[i];
        }
        for (int j = 0; j < n; j++) b[j] = 0;
        """
    )
    assert [len(loop.regions) for loop in source.nests] == [1, 0]


def test_compute_region_and_pragma_of_outer_loop_enclose_inner_loop() -> None:
    source = in_function(
        """\
        #pragma acc parallel
        {
          #pragma acc loop gang
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) c[i*n+j] = 0;
        }
        """
    )
    inner = source.nests[0].children[0]
    assert [r.directive.name for r in inner.regions] == ["parallel", "loop"]


# ----- early exits ------------------------------------------------------------------


def test_break_leaves_the_loop_it_is_in() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) { if (a[i] < 0) break; b[i] = 1; }")
    assert exit_kinds(loop) == [ExitKind.BREAK]


def test_break_in_an_inner_loop_does_not_leave_the_outer_loop() -> None:
    outer = loop_of(
        """\
        for (int i = 0; i < n; i++)
          for (int j = 0; j < n; j++)
            if (a[j] < 0) break;
        """
    )
    assert exit_kinds(outer) == []
    assert exit_kinds(outer.children[0]) == [ExitKind.BREAK]


def test_break_in_a_switch_does_not_leave_the_loop() -> None:
    loop = loop_of(
        """\
        for (int i = 0; i < n; i++) {
          switch (idx[i]) { case 0: b[i] = 0; break; default: b[i] = 1; break; }
        }
        """
    )
    assert exit_kinds(loop) == []


def test_break_in_a_while_does_not_leave_the_loop() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) { while (1) { break; } b[i] = 0; }")
    assert exit_kinds(loop) == []


def test_return_leaves_every_enclosing_loop() -> None:
    outer = loop_of(
        """\
        for (int i = 0; i < n; i++)
          for (int j = 0; j < n; j++)
            if (a[j] < 0) return;
        """
    )
    assert exit_kinds(outer) == [ExitKind.RETURN]
    assert exit_kinds(outer.children[0]) == [ExitKind.RETURN]


def test_goto_leaves_the_loop() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) { if (a[i]) goto out; }\nout: ;")
    assert exit_kinds(loop) == [ExitKind.GOTO]


def test_exit_call_leaves_the_loop() -> None:
    loop = loop_of("for (int i = 0; i < n; i++) { if (a[i]) exit(1); }")
    assert exit_kinds(loop) == [ExitKind.EXIT]


# ----- liveness -----------------------------------------------------------------------


def test_scalar_read_after_the_loop_is_live() -> None:
    loop = loop_of(
        """\
        double t = 0;
        for (int i = 0; i < n; i++) t = a[i];
        b[0] = t;
        """
    )
    assert loop.live_after == ("t",)


def test_scalar_redefined_before_any_read_is_not_live() -> None:
    loop = loop_of(
        """\
        double t = 0;
        for (int i = 0; i < n; i++) t = a[i];
        t = 1;
        b[0] = t;
        """
    )
    assert loop.live_after == ()


def test_scalar_redefined_only_conditionally_is_still_live() -> None:
    loop = loop_of(
        """\
        double t = 0;
        for (int i = 0; i < n; i++) t = a[i];
        if (n > 3) t = 1;
        b[0] = t;
        """
    )
    assert loop.live_after == ("t",)


def test_loop_variable_read_after_the_loop_is_live() -> None:
    loop = loop_of("int i;\nfor (i = 0; i < n; i++) a[i] = 0;\nb[0] = i;")
    assert loop.live_after == ("i",)


def test_scalar_read_in_the_next_iteration_of_an_outer_loop_is_live() -> None:
    outer = loop_of(
        """\
        double t = 0;
        for (int k2 = 0; k2 < n; k2++) {
          b[k2] = t;
          for (int i = 0; i < n; i++) t = a[i];
        }
        """
    )
    assert outer.children[0].live_after == ("t",)


def test_global_written_in_the_loop_is_live() -> None:
    source = parse(
        """\
        double g;
        void f(int n, double *a) { for (int i = 0; i < n; i++) g = a[i]; }
        """
    )
    assert source.nests[0].live_after == ("g",)


# ----- broken input -----------------------------------------------------------------


def test_syntax_errors_still_yield_the_loops_that_parse() -> None:
    source = parse(
        """\
        void f(int n, double *a) {
          for (int i = 0; i < n; i++) a[i] = 0;
          int x = ) garbage @@ ;
          for (int j = 0; j < n; j++) a[j] = 1;
        }
        void g(int n, double *a) {
          for (int k = 0; k < n; k++) a[k] = 2 +;
        }
        """
    )
    assert source.errors
    assert [(loop.function, loop.var) for loop in source.nests] == [
        ("f", "i"),
        ("f", "j"),
        ("g", "k"),
    ]


def test_error_spans_point_at_the_broken_lines() -> None:
    source = parse(
        """\
        void f(int n, double *a) {
          for (int i = 0; i < n; i++) a[i] = 0;
          int x = ) garbage @@ ;
        }
        """
    )
    assert {err.line for err in source.errors} == {3}


def test_empty_text_has_no_loops() -> None:
    source = parse_source("")
    assert (source.nests, source.functions, source.errors) == ((), (), ())


# ----- else branches -----------------------------------------------------------------


def test_references_in_an_else_branch_are_recorded() -> None:
    loop = loop_of(
        "for (int i = 0; i < n; i++) { if (a[i] > 0) b[i] = 1; else c[i] = 2; }"
    )
    assert [(r.kind, r.guarded) for r in refs_to(loop, "c")] == [
        (AccessKind.WRITE, True)
    ]


def test_loop_in_an_else_branch_is_found() -> None:
    source = in_function(
        """\
        if (n < 0) return;
        else {
          for (int i = 0; i < n; i++) a[i] = 0;
        }
        """
    )
    assert [loop.var for loop in source.nests] == ["i"]


def test_prototype_parameters_are_not_globals() -> None:
    src = dedent(
        """
        void omp_set_num_threads(int i);
        int printf(const char *, ...);
        float h(struct s *p, n);
        double POLYBENCH_2D(A, N, M, n, m);
        void f(int n, double *restrict a) {
            int i;
            for (i = 0; i < n; i++)
                a[i] = 0.0;
        }
        """
    )
    source = parse_source(src)
    assert [v.name for v in source.globals] == ["A"]
    assert source.nests[0].live_after == ()
