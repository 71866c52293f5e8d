"""Exact array dependence analysis: one behaviour per test, from short C snippets."""

from __future__ import annotations

from textwrap import dedent

import islpy as isl
import pytest
from accls.analysis import dependence_exact
from accls.analysis.dependence import nest_dependences
from accls.analysis.model import Dependence
from accls.frontend import AccessKind, Loop, Poly, Ref, Span, Subscript, parse_source

Summary = tuple[str, str, int | None, tuple[str, ...], tuple[int | None, ...], bool]

PARAMS = (
    "int n, int m, int *idx, double *a, double *b, double *p, double *x, "
    "double A[100][100], double B[100][100], double C[100][100], double L[100][100]"
)


def nest_of(body: str) -> Loop:
    """The first loop nest of `body`, wrapped in a function."""
    source = parse_source(f"void f({PARAMS}) {{\n{dedent(body)}\n}}\n")
    return source.nests[0]


def summary(dep: Dependence) -> Summary:
    """(array, kind, carrying level, direction, distance, exact)."""
    level = None if dep.carrier is None else dep.loops.index(dep.carrier)
    return dep.array, dep.kind.value, level, dep.direction, dep.distance, dep.exact


def deps(body: str) -> set[Summary]:
    return {summary(dep) for dep in nest_dependences(nest_of(body))}


def carried(body: str) -> set[Summary]:
    return {s for s in deps(body) if s[2] is not None}


def all_assumed(found: tuple[Dependence, ...]) -> bool:
    """True when there are dependences and none of them was proved exactly."""
    return bool(found) and all(not d.exact for d in found)


def levels(body: str) -> set[int]:
    return {s[2] for s in carried(body) if s[2] is not None}


# ----- one loop --------------------------------------------------------------


def test_same_element_each_iteration_is_not_carried() -> None:
    # `1 - a[i]` reads, then writes: `a[i] = a[i] + 1` is one update, `a[i] += 1`.
    assert deps("for (int i = 0; i < n; i++) a[i] = 1 - a[i];") == {
        ("a", "anti", None, ("=",), (0,), True)
    }
    assert deps("for (int i = 0; i < n; i++) a[i] = a[i] + 1;") == set()


def test_read_of_previous_element_is_a_flow_at_distance_one() -> None:
    assert carried("for (int i = 1; i < n; i++) a[i] = a[i-1];") == {
        ("a", "flow", 0, ("<",), (1,), True)
    }


def test_read_of_next_element_is_an_anti_dependence() -> None:
    assert carried("for (int i = 0; i < n - 1; i++) a[i] = a[i+1];") == {
        ("a", "anti", 0, ("<",), (1,), True)
    }


def test_constant_subscript_write_is_an_output_dependence() -> None:
    assert deps("for (int i = 0; i < n; i++) a[0] = i;") == {
        ("a", "output", 0, ("<",), (None,), True)
    }


def test_decreasing_loop_measures_distance_along_its_order() -> None:
    assert carried("for (int i = n - 1; i >= 0; i--) a[i] = a[i+1];") == {
        ("a", "flow", 0, ("<",), (1,), True)
    }


def test_stride_two_never_meets_the_odd_elements() -> None:
    assert deps("for (int i = 0; i < n; i += 2) a[i] = a[i+1];") == set()


def test_stride_two_carries_a_distance_of_two() -> None:
    assert carried("for (int i = 2; i < n; i += 2) a[i] = a[i-2];") == {
        ("a", "flow", 0, ("<",), (2,), True)
    }


def test_distance_beyond_the_trip_count_is_no_dependence() -> None:
    assert deps("for (int i = 0; i < 4; i++) a[i] = a[i+8];") == set()


def test_offset_by_the_trip_count_is_no_dependence() -> None:
    assert deps("for (int i = 0; i < n; i++) a[i] = a[i+n];") == set()


def test_symbolic_offset_may_go_either_way() -> None:
    found = carried("for (int i = 0; i < n; i++) a[i] = a[i+m];")
    assert {(s[1], s[3], s[4], s[5]) for s in found} == {
        ("flow", ("<",), (None,), True),
        ("anti", ("<",), (None,), True),
    }


def test_even_and_odd_elements_never_meet() -> None:
    assert deps("for (int i = 0; i < n; i++) a[2*i] = a[2*i+1];") == set()


def test_loop_independent_flow_runs_from_the_write() -> None:
    (dep,) = nest_dependences(
        nest_of("for (int i = 0; i < n; i++) { a[i] = 1; b[i] = a[i]; }")
    )
    assert (dep.kind.value, dep.carrier) == ("flow", None)
    assert dep.source.start_byte < dep.sink.start_byte


def test_spans_name_the_earlier_and_later_references() -> None:
    nest = nest_of("for (int i = 1; i < n; i++) a[i] = a[i-1];")
    (dep,) = nest_dependences(nest)
    write = next(r for r in nest.refs if r.name == "a" and r.kind is AccessKind.WRITE)
    read = next(r for r in nest.refs if r.name == "a" and r.kind is AccessKind.READ)
    assert (dep.source, dep.sink) == (write.span, read.span)


def test_pointer_dereference_is_element_zero() -> None:
    found = carried("for (int i = 0; i < n; i++) *p = *p + a[i];")
    assert {s[1] for s in found} == {"flow", "anti", "output"}
    assert all(s[0] == "p" and s[5] for s in found)


def test_loop_that_never_runs_has_no_dependence() -> None:
    assert deps("for (int i = 3; i < 3; i++) a[i] = a[i] + 1;") == set()


def test_scalars_only_have_no_array_dependence() -> None:
    assert deps("for (int i = 0; i < n; i++) m = m + i;") == set()


def test_update_in_an_inner_loop_is_carried_by_it() -> None:
    body = """
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        a[i] += b[j];
    """
    assert carried(body) == {("a", "flow", 1, ("=", "<"), (0, None), True)}


def test_read_only_and_distinct_arrays_have_no_dependence() -> None:
    assert deps("for (int i = 0; i < n; i++) b[i] = a[i] + a[i+1];") == set()


def test_reference_in_the_loop_condition_is_ordered_before_the_body() -> None:
    assert carried("for (int i = 0; a[i] != 0; i++) a[i+1] = 2;") == {
        ("a", "flow", 0, ("<",), (1,), True)
    }


# ----- nests -------------------------------------------------------------------

STENCIL = """
for (int i = 1; i < n - 1; i++)
  for (int j = 1; j < n - 1; j++)
    B[i][j] = 0.25 * (A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]);
"""

GAUSS_SEIDEL = """
for (int i = 1; i < n - 1; i++)
  for (int j = 1; j < n - 1; j++)
    A[i][j] = 0.25 * (A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]);
"""


def test_jacobi_stencil_writes_another_array() -> None:
    assert deps(STENCIL) == set()


def test_gauss_seidel_is_carried_by_both_loops() -> None:
    assert carried(GAUSS_SEIDEL) == {
        ("A", "flow", 0, ("<", "="), (1, 0), True),
        ("A", "anti", 0, ("<", "="), (1, 0), True),
        ("A", "flow", 1, ("=", "<"), (0, 1), True),
        ("A", "anti", 1, ("=", "<"), (0, 1), True),
    }


def test_wavefront_is_carried_by_the_outer_loop_only() -> None:
    body = """
    for (int i = 1; i < n; i++)
      for (int j = 0; j < m; j++)
        A[i][j] = A[i-1][j];
    """
    assert carried(body) == {("A", "flow", 0, ("<", "="), (1, 0), True)}


def test_triangular_bounds_separate_the_two_triangles() -> None:
    body = """
    for (int i = 0; i < n; i++)
      for (int j = 0; j < i; j++)
        A[i][j] = A[j][i];
    """
    assert deps(body) == set()


def test_triangular_solve_is_carried_by_the_outer_loop() -> None:
    body = """
    for (int i = 0; i < n; i++)
      for (int j = 0; j < i; j++)
        x[i] = x[i] - L[i][j] * x[j];
    """
    found = carried(body)
    assert ("x", "flow", 0, ("<", "<"), (None, None), True) in found
    assert levels(body) == {0, 1}


def test_matrix_product_is_carried_by_the_reduction_loop_only() -> None:
    body = """
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        for (int k = 0; k < n; k++)
          C[i][j] += A[i][k] * B[k][j];
    """
    assert carried(body) == {("C", "flow", 2, ("=", "=", "<"), (0, 0, None), True)}


def test_sibling_inner_loops_meet_only_across_outer_iterations() -> None:
    body = """
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) a[j] = i;
      for (int j = 0; j < n; j++) b[j] = a[j];
    }
    """
    pairs = {(s[1], s[2]) for s in deps(body) if s[3] != ("<", "=")}
    assert pairs == {("flow", 0), ("anti", 0), ("flow", None)}


def test_inner_loop_as_root_treats_outer_variable_as_a_parameter() -> None:
    nest = nest_of(
        """
        for (int i = 0; i < n; i++)
          for (int j = 1; j < n; j++)
            A[i][j] = A[i][j-1];
        """
    )
    (dep,) = nest_dependences(nest.children[0])
    assert (dep.carrier, dep.loops, dep.distance) == (
        nest.children[0].id,
        (dep.carrier,),
        (1,),
    )


# ----- linearized subscripts --------------------------------------------------


def test_linearized_row_major_access_is_not_carried() -> None:
    body = """
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        b[i*n + j] = b[i*n + j] * 2;
    """
    assert carried(body) == set()


def test_linearized_access_that_may_spill_into_the_next_row_is_assumed() -> None:
    body = """
    for (int i = 0; i < n; i++)
      for (int j = 0; j <= n; j++)
        b[i*n + j] = 2 - b[i*n + j];
    """
    found = nest_dependences(nest_of(body))
    assert all_assumed(found)
    assert "i*n + j" in found[0].reason
    assert {summary(d)[2] for d in found} == {0, 1, None}


def test_linearized_three_dimensional_access_is_not_carried() -> None:
    body = """
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        for (int k = 0; k < 8; k++)
          a[(i*m + j)*8 + k] = a[(i*m + j)*8 + k] + 1;
    """
    assert carried(body) == set()


def test_linearized_previous_row_is_a_flow_at_distance_one() -> None:
    body = """
    for (int i = 1; i < n; i++)
      for (int j = 0; j < m; j++)
        b[i*m + j] = b[(i-1)*m + j];
    """
    assert carried(body) == {("b", "flow", 0, ("<", "="), (1, 0), True)}


# ----- what cannot be modelled ------------------------------------------------


def test_indirect_subscript_is_assumed() -> None:
    found = nest_dependences(nest_of("for (int i = 0; i < n; i++) a[idx[i]] += 1;"))
    assert [(d.carrier is not None, d.direction, d.exact) for d in found] == [
        (True, ("*",), False)
    ]
    assert "idx[i]" in found[0].reason


def test_subscript_with_a_counter_is_assumed() -> None:
    body = "int k = 0;\nfor (int i = 0; i < n; i++) a[k++] = i;"
    source = parse_source(f"void f({PARAMS}) {{\n{body}\n}}\n")
    (dep,) = nest_dependences(source.nests[0])
    assert (dep.kind.value, dep.distance, dep.exact) == ("output", (None,), False)


def test_subscript_with_a_counter_written_later_is_assumed() -> None:
    (dep,) = nest_dependences(nest_of("for (int i = 0; i < n; i++) { a[m] = i; m++; }"))
    assert (dep.exact, dep.direction) == (False, ("*",))
    assert "`m`" in dep.reason


def test_subscript_with_a_field_written_in_the_loop_is_assumed() -> None:
    source = parse_source(
        dedent(
            """
            struct S { int n; };
            void f(struct S s, double *a, int n) {
              for (int i = 0; i < n; i++) { a[s.n + i] = 0; s.n = 3; }
            }
            """
        )
    )
    (dep,) = nest_dependences(source.nests[0])
    assert not dep.exact
    assert "s.n" in dep.reason


def test_subscript_with_a_scalar_written_in_the_loop_is_assumed() -> None:
    body = """
    for (int i = 0; i < n; i++) {
      a[t] = a[t] + 1;
      t = i * i;
    }
    """
    found = nest_dependences(nest_of(body))
    assert found
    assert all_assumed(found)
    assert "`t`" in found[0].reason


def test_scalar_assigned_before_its_use_is_substituted() -> None:
    body = """
    for (int i = 0; i < n; i++) {
      int t = 2 * i;
      a[t] = 1 - a[t];
    }
    """
    found = nest_dependences(nest_of(body))
    assert found
    assert all(d.exact and d.carrier is None for d in found)


def test_reassigned_pointer_is_assumed() -> None:
    body = "for (int i = 0; i < n; i++) { p = a + i; p[0] = p[1]; }"
    found = nest_dependences(nest_of(body))
    assert all_assumed(found)
    assert "reassigned" in found[0].reason


def test_pointer_reassigned_in_the_outer_loop_is_fixed_in_the_inner_one() -> None:
    body = """
    for (int i = 0; i < n; i++) {
      double *row = a + i * n;
      for (int j = 0; j < n; j++) row[j] = 2 - row[j];
    }
    """
    found = nest_dependences(nest_of(body))
    assert {summary(d)[2] for d in found if not d.exact} == {0}
    assert {summary(d)[2:] for d in found if d.exact} == {
        (None, ("=", "="), (0, 0), True)
    }


def test_symbol_set_in_the_outer_loop_is_fixed_in_the_inner_one() -> None:
    body = """
    for (int i = 0; i < n; i++) {
      int base = i * n;
      for (int j = 1; j < n; j++) b[base + j] = b[base + j - 1];
    }
    """
    found = carried(body)
    # `base` is `i * n` where it is used: the rows of `b` are told apart exactly.
    assert set(found) == {("b", "flow", 1, ("=", "<"), (0, 1), True)}


def test_swapped_buffers_leave_the_inner_sweep_parallel() -> None:
    body = """
    for (int t = 0; t < m; t++) {
      for (int i = 1; i < n - 1; i++) b[i] = p[i-1] + p[i+1];
      double *tmp = p; p = b; b = tmp;
    }
    """
    assert levels(body) == {0}


def test_loop_variable_changed_in_the_body_orders_nothing() -> None:
    body = "for (int i = 0; i < n; i++) { a[i] = 1; i++; }"
    (dep,) = nest_dependences(nest_of(body))
    assert (dep.direction, dep.exact) == (("*",), False)


def test_non_affine_bound_is_dropped_soundly() -> None:
    assert carried("for (int i = 0; i < n*n; i++) a[i] = a[i+1];") == {
        ("a", "anti", 0, ("<",), (1,), True)
    }


def test_bound_written_in_the_loop_is_dropped_soundly() -> None:
    body = "for (int i = 0; i < m; i++) { a[i+4] = a[i]; m = 2; }"
    assert ("a", "flow", 0, ("<",), (4,), True) in carried(body)


# ----- hand-built references --------------------------------------------------


def _span(at: int) -> Span:
    return Span(at, at + 1, (0, at), (0, at + 1))


def _sub(text: str, poly: Poly | None) -> Subscript:
    return Subscript(text, poly)


def _loop(refs: tuple[Ref, ...]) -> Loop:
    return Loop(
        id=0,
        span=_span(0),
        keyword=_span(0),
        header=_span(0),
        body=Span(10, 99, (0, 10), (0, 99)),
        function="f",
        var="i",
        lower=Poly.const(0),
        upper=Poly.sym("n"),
        cond_op="<",
        step=1,
        refs=refs,
    )


def _ref(at: int, kind: AccessKind, *subs: Subscript, deref: bool = False) -> Ref:
    return Ref(
        name="a", kind=kind, span=_span(at), subscripts=subs, loops=(0,), deref=deref
    )


SUB_I = _sub("i", Poly.sym("i"))


def test_a_row_and_its_elements_compare_on_the_common_subscripts() -> None:
    # `a[i]` (a whole row, as a callee writes it) and `a[i][i]`: the same row.
    loop = _loop(
        (_ref(20, AccessKind.WRITE, SUB_I), _ref(30, AccessKind.READ, SUB_I, SUB_I))
    )
    assert not [d for d in nest_dependences(loop) if d.carrier == 0]


def test_a_row_and_the_next_rows_elements_are_a_dependence() -> None:
    next_row = _sub("i + 1", Poly.sym("i") + Poly.const(1))
    zero = _sub("0", Poly.const(0))
    loop = _loop(
        (_ref(20, AccessKind.WRITE, SUB_I), _ref(30, AccessKind.READ, next_row, zero))
    )
    found = [d for d in nest_dependences(loop) if d.carrier == 0]
    assert found
    assert not all_assumed(tuple(found))


def test_non_polynomial_subscript_is_assumed() -> None:
    # `i/2` is modelled (a quotient, see test_quotients); a call is not.
    loop = _loop((_ref(20, AccessKind.UPDATE, _sub("f(i)", None)),))
    (dep,) = nest_dependences(loop)
    assert (dep.kind.value, dep.exact) == ("flow", False)
    assert "f(i)" in dep.reason


def test_subscripted_dereference_is_assumed() -> None:
    loop = _loop((_ref(20, AccessKind.WRITE, SUB_I, deref=True),))
    (dep,) = nest_dependences(loop)
    assert not dep.exact


def test_reference_loops_outside_the_root_are_parameters() -> None:
    outer = Ref(
        name="a",
        kind=AccessKind.WRITE,
        span=_span(20),
        subscripts=(_sub("k", Poly.sym("k")),),
        loops=(-5, 0),
    )
    (dep,) = nest_dependences(_loop((outer,)))
    assert (dep.kind.value, dep.carrier, dep.distance, dep.exact) == (
        "output",
        0,
        (None,),
        True,
    )


# ----- when isl fails ---------------------------------------------------------


@pytest.fixture
def broken_isl(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: object, **__: object) -> None:
        raise isl.Error("simulated failure")

    monkeypatch.setattr(dependence_exact, "build", fail)


@pytest.mark.usefixtures("broken_isl")
def test_bounds_test_disproves_without_isl() -> None:
    assert deps("for (int i = 0; i < 10; i++) a[i] = a[2*i + 30];") == set()


@pytest.mark.usefixtures("broken_isl")
def test_dependence_is_assumed_when_isl_fails() -> None:
    found = nest_dependences(nest_of("for (int i = 0; i < n; i++) a[i] = a[n - i];"))
    assert all_assumed(found)
    assert {d.kind.value for d in found} == {"flow", "anti"}


def test_rows_of_a_constant_times_a_symbol_are_told_apart() -> None:
    rows = "for (int x = 0; x < 5; x++) for (int y = 0; y < 5 * n; y++) "
    assert carried(rows + "a[x * 5 * n + y] = a[x * 5 * n + y] + 1;") == set()
    wider = "for (int x = 0; x < 5; x++) for (int y = 0; y <= 5 * n; y++) "
    assert 0 in levels(wider + "a[x * 5 * n + y] = a[x * 5 * n + y] + 1;")


def test_row_split_names_a_column_bound_read_from_memory() -> None:
    # `k < count[i]`: the rows of `M` apart need `count[i] <= M`, which nothing
    # in the loop proves; the reason names that bound.
    body = """
    for (int i = 0; i < n; i++)
      for (int k = 0; k < count[i]; k++) b[i * m + k] = 0;
    """
    found = nest_dependences(nest_of(body))
    reasons = {d.reason for d in found if not d.exact}
    assert any(
        "`k` stops at `count[i]`, a value read from memory that nothing proves "
        "to be at most `m`" in r
        for r in reasons
    ), reasons


def test_row_split_with_a_bounded_column_keeps_rows_apart() -> None:
    body = """
    for (int i = 0; i < n; i++)
      for (int k = 0; k < m; k++) b[i * m + k] = 0;
    """
    assert not [d for d in nest_dependences(nest_of(body)) if d.carrier is not None]


def test_a_path_through_a_pointer_set_in_each_iteration_names_that_pointer() -> None:
    # `bp->v` is read from the block `bp` picks: the pointer that moves is `bp`.
    source = parse_source(
        "struct blk { double *v; };\n"
        "void f(struct blk *blocks, int *idx, int n, int m) {\n"
        "  for (int i = 0; i < n; i++) {\n"
        "    struct blk *bp = &blocks[idx[i]];\n"
        "    for (int k = 0; k < m; k++) bp->v[k] = 0;\n"
        "  }\n"
        "}\n"
    )
    found = [d for d in nest_dependences(source.nests[0]) if d.array == "bp->v"]
    assert found
    assert all_assumed(tuple(found))
    assert {d.reason for d in found} == {
        "`bp` changes inside the loop, so `bp->v` may be a different pointer in "
        "each iteration, and nothing proves two iterations reach different memory "
        "through it"
    }


def test_a_pointer_reassigned_in_each_iteration_keeps_its_own_name() -> None:
    found = [
        d
        for d in nest_dependences(
            nest_of(
                """
                for (int i = 0; i < n; i++) {
                    p = a + idx[i];
                    for (int k = 0; k < m; k++) p[k] = 0;
                }
                """
            )
        )
        if d.array == "p"
    ]
    assert found
    assert {d.reason for d in found} == {"`p` is reassigned inside the loop"}


def test_a_struct_handed_to_a_call_in_each_iteration_names_the_struct() -> None:
    # `build(&s)` may store a new block in `s.v`: the pointer, not `s`, moves.
    source = parse_source(
        "struct sys { double *v; };\n"
        "void build(struct sys *s);\n"
        "void f(int n, int m) {\n"
        "  struct sys s;\n"
        "  for (int t = 0; t < n; t++) {\n"
        "    build(&s);\n"
        "    for (int k = 0; k < m; k++) s.v[k] += 1.0;\n"
        "  }\n"
        "}\n"
    )
    found = [d for d in nest_dependences(source.nests[0]) if d.array == "s.v"]
    assert found
    assert {d.reason for d in found} == {
        "`s` changes inside the loop, so `s.v` may be a different pointer in "
        "each iteration, and nothing proves two iterations reach different memory "
        "through it"
    }
