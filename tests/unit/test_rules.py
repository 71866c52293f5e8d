"""Rule-based pragma synthesis: directives, clauses and refusals from the facts."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file

PARAMS = (
    "int n, int m, const double *restrict a, double *restrict b, "
    "double *restrict c, const int *restrict idx"
)
ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP_CPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
OMP_GPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)


def suggest(
    body: str,
    opts: SuggestOptions = ACC,
    *,
    params: str = PARAMS,
    no_alias: bool = False,
    prelude: str = "",
) -> tuple[Suggestion, ...]:
    """Suggestions for `body`, wrapped in `double f(PARAMS)`."""
    text = f"{dedent(prelude)}double f({params}) {{\n{dedent(body)}\n}}\n"
    analysis = analyze_text(text, options=AnalysisOptions(assume_no_alias=no_alias))
    return suggest_file(analysis, opts)


def first(
    body: str,
    opts: SuggestOptions = ACC,
    *,
    params: str = PARAMS,
    no_alias: bool = False,
    prelude: str = "",
) -> Suggestion:
    """The suggestion for the first loop of `body`."""
    return suggest(body, opts, params=params, no_alias=no_alias, prelude=prelude)[0]


def directive(s: Suggestion) -> str | None:
    return s.pragma.directive if s.pragma is not None else None


def clauses(s: Suggestion) -> dict[str, str | None]:
    """Clause name -> arguments; `map` clauses are keyed `map(KIND)`."""
    assert s.pragma is not None, s.reasons
    out: dict[str, str | None] = {}
    for clause in s.pragma.clauses:
        if clause.name == "map" and clause.args is not None:
            kind, items = clause.args.split(":", 1)
            out[f"map({kind.strip()})"] = items.strip()
        else:
            out[clause.name] = clause.args
    return out


def rendered(s: Suggestion) -> str | None:
    """The pragma line, or None; keeps failure messages short for huge nests."""
    return s.pragma.render() if s.pragma is not None else None


def obstacle_codes(s: Suggestion) -> set[str]:
    return {o.code for o in s.facts.obstacles}


def refused(s: Suggestion) -> bool:
    return s.pragma is None and s.existing is None


# ----- OpenACC --------------------------------------------------------------------


def test_acc_parallel_loop_moves_inputs_in_and_outputs_out() -> None:
    s = first("for (int i = 0; i < n; i++) b[i] = a[i] + 1;")
    assert directive(s) == "parallel loop"
    assert clauses(s) == {"copyin": "a[0:n]", "copyout": "b[0:n]"}


def test_acc_array_read_and_written_is_copied_both_ways() -> None:
    s = first("for (int i = 0; i < n; i++) b[i] = b[i] * 2;")
    assert clauses(s) == {"copy": "b[0:n]"}


def test_acc_render_orders_clauses_canonically() -> None:
    s = first("for (int i = 0; i < n; i++) c[i] = c[i] + a[i];")
    assert s.pragma is not None
    assert s.pragma.render() == "#pragma acc parallel loop copy(c[0:n]) copyin(a[0:n])"


def test_acc_kernels_option_uses_kernels_loop() -> None:
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU, kernels=True)
    s = first("for (int i = 0; i < n; i++) b[i] = a[i];", opts)
    assert directive(s) == "kernels loop"


def test_acc_inside_a_data_region_uses_present() -> None:
    s = first(
        """\
        #pragma acc data copyin(a[0:n]) copy(b[0:n])
        {
          for (int i = 0; i < n; i++) b[i] = a[i] * 2;
        }
        """
    )
    assert clauses(s) == {"present": "a[0:n], b[0:n]"}


def test_acc_data_region_covers_only_the_arrays_it_names() -> None:
    s = first(
        """\
        #pragma acc data copyin(a[0:n])
        {
          for (int i = 0; i < n; i++) b[i] = a[i];
        }
        """
    )
    assert clauses(s) == {"copyout": "b[0:n]", "present": "a[0:n]"}


def test_acc_loop_inside_a_parallel_region_is_an_acc_loop() -> None:
    s = first(
        """\
        #pragma acc parallel copyin(a[0:n]) copyout(b[0:n])
        {
          for (int i = 0; i < n; i++) b[i] = a[i];
        }
        """
    )
    assert directive(s) == "loop"
    assert clauses(s) == {}


def test_acc_loop_inside_a_kernels_region_is_an_acc_loop() -> None:
    s = first("#pragma acc kernels\n{\n  for (int i = 0; i < n; i++) b[i] = a[i];\n}")
    assert directive(s) == "loop"


def test_acc_loop_inside_a_serial_region_is_a_plain_loop() -> None:
    s = first("#pragma acc serial\n{\n  for (int i = 0; i < n; i++) b[i] = a[i];\n}")
    assert rendered(s) == "#pragma acc loop"


def test_acc_already_annotated_loop_is_kept() -> None:
    s = first("#pragma acc parallel loop\nfor (int i = 0; i < n; i++) b[i] = a[i];")
    assert s.pragma is None
    assert s.existing == "#pragma acc parallel loop"


def test_acc_perfect_rectangular_nest_gets_a_pragma_per_level() -> None:
    outer, inner = suggest(
        """\
        for (int i = 0; i < n; i++)
          for (int j = 0; j < m; j++)
            b[i*m+j] = a[j];
        """
    )
    assert "collapse" not in clauses(outer)
    assert outer.collapsed == ()
    assert (directive(inner), inner.loop.var) == ("loop", "j")


def test_acc_perfect_nest_with_a_short_level_is_collapsed() -> None:
    # Four gangs, or three vector lanes, cannot fill their level: fold the nest.
    for bounds, row in (("i < 4", "j < m"), ("i < n", "j < 3")):
        width = "m" if row == "j < m" else "3"
        (s,) = suggest(
            f"for (int i = 0; {bounds}; i++)\n"
            f"  for (int j = 0; {row}; j++)\n"
            f"    b[i*{width}+j] = a[j];\n"
        )
        assert clauses(s)["collapse"] == "2"
        assert s.collapsed == (s.loop.children[0].id,)
        assert any("rather than a pragma per level, since" in r for r in s.reasons)


def test_bound_read_from_an_array_indexed_by_an_outer_variable_stops_collapse() -> None:
    # `j < idx[i]` is not an affine bound, so no compiler accepts it in a collapse.
    (s,) = suggest(
        """\
        for (int i = 0; i < 4; i++)
          for (int k = 0; k < 3; k++)
            for (int j = 0; j < idx[k]; j++)
              b[i][k][j] = a[j];
        """,
        OMP_CPU,
        params="int n, int m, double b[4][3][m], const double *restrict a, "
        "const int *restrict idx",
    )
    assert clauses(s)["collapse"] == "2"
    assert s.collapsed == (s.loop.children[0].id,)


def test_few_iterations_inside_a_sequential_loop_get_no_parallel_region() -> None:
    # A parallel region per outer iteration around three iterations of work.
    found = suggest(
        """\
        for (int i = 1; i < n; i++) {
          b[i] = b[i-1] + a[i];
          for (int k = 0; k < 3; k++)
            c[3*i+k] = a[i] * k;
        }
        """,
        OMP_CPU,
    )
    assert [(s.loop.var, s.pragma) for s in found] == [("i", None), ("k", None)]
    assert "only 3 iterations" in found[1].reasons[0]


def test_few_iterations_bounded_by_an_outer_constant_loop_stay_sequential() -> None:
    # `j` runs at most 12 times: its bounds use `i`, which stays below 12.
    found = suggest(
        """\
        for (int i = 0; i < 12; i++) {
          double run = 0;
          for (int j = i; j > 0; j--)
            run += a[j];
          if (run > 1.0)
            return i;
        }
        """,
        OMP_CPU,
    )
    assert [(s.loop.var, s.pragma) for s in found] == [("i", None), ("j", None)]
    assert "only 12 iterations" in found[1].reasons[0]


def test_few_iterations_of_trivial_work_get_no_parallel_region() -> None:
    (s,) = suggest("for (int k = 0; k < 5; k++) b[k] = 0;", OMP_CPU)
    assert s.pragma is None
    assert "only 5 iterations" in s.reasons[0]


def test_few_iterations_each_running_a_loop_are_parallel() -> None:
    (s,) = suggest(
        "for (int k = 0; k < 4; k++)\n  for (int i = 0; i < n; i++) c[k*n+i] = a[i];",
        OMP_CPU,
        no_alias=True,
    )
    assert s.loop.var == "k"
    assert rendered(s) == "#pragma omp parallel for collapse(2)"


def test_acc_triangular_nest_is_not_collapsed() -> None:
    outer, inner = suggest(
        """\
        for (int i = 0; i < n; i++)
          for (int j = 0; j < i; j++)
            b[i*n+j] = a[j];
        """
    )
    assert "collapse" not in clauses(outer)
    assert outer.collapsed == ()
    # Two levels, left to the compiler as experts write them (level_words.py).
    assert not {"gang", "vector"} & set(clauses(outer))
    assert (directive(inner), inner.inner) == ("loop", True)
    assert not {"gang", "vector"} & set(clauses(inner))


def test_acc_inner_reduction_is_on_the_vector_loop() -> None:
    outer, inner = suggest(
        """\
        int j; double s;
        for (int i = 0; i < n; i++) {
          s = 0;
          for (j = 0; j < m; j++) s += a[i*m+j];
          b[i] = s;
        }
        return 0;
        """
    )
    assert clauses(outer)["private"] == "j, s"
    assert clauses(inner)["reduction"] == "+:s"


def test_acc_private_temporary() -> None:
    s = first("double t;\nfor (int i = 0; i < n; i++) { t = a[i]; b[i] = t * t; }")
    assert clauses(s)["private"] == "t"


def test_acc_temporary_declared_in_the_body_needs_no_clause() -> None:
    s = first("for (int i = 0; i < n; i++) { double t = a[i]; b[i] = t * t; }")
    assert "private" not in clauses(s)


def test_acc_reduction_clause() -> None:
    s = first("double s = 0;\nfor (int i = 0; i < n; i++) s += a[i];\nreturn s;")
    assert clauses(s) == {"reduction": "+:s", "copyin": "a[0:n]"}


def test_acc_refuses_a_scalar_needed_after_the_loop() -> None:
    s = first(
        "double last = 0;\nfor (int i = 0; i < n; i++) last = a[i];\nreturn last;"
    )
    assert s.pragma is None
    assert s.facts.parallel


# ----- OpenMP on the CPU ----------------------------------------------------------


def test_omp_parallel_for() -> None:
    s = first("for (int i = 0; i < n; i++) b[i] = a[i];", OMP_CPU)
    assert s.pragma is not None
    assert s.pragma.render() == "#pragma omp parallel for"


def test_omp_private() -> None:
    s = first(
        "double t;\nfor (int i = 0; i < n; i++) { t = a[i]; b[i] = t * t; }", OMP_CPU
    )
    assert clauses(s) == {"private": "t"}


def test_omp_lastprivate() -> None:
    s = first(
        "double last = 0;\nfor (int i = 0; i < 64; i++) last = a[i];\nreturn last;",
        OMP_CPU,
    )
    assert clauses(s) == {"lastprivate": "last"}


def test_omp_lastprivate_of_a_loop_that_may_be_empty_keeps_the_first_value() -> None:
    # With n == 0 no iteration sets `last`: a firstprivate copy is what is copied out.
    s = first(
        "double last = 0;\nfor (int i = 0; i < n; i++) last = a[i];\nreturn last;",
        OMP_CPU,
    )
    assert clauses(s) == {"firstprivate": "last", "lastprivate": "last"}


def test_omp_lastprivate_loop_variable() -> None:
    s = first("int i;\nfor (i = 0; i < 64; i++) b[i] = a[i];\nreturn i;", OMP_CPU)
    assert clauses(s) == {"lastprivate": "i"}


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("s += a[i];", "+:s"),
        ("s *= a[i];", "*:s"),
        ("if (a[i] > s) s = a[i];", "max:s"),
        ("s = fmin(s, a[i]);", "min:s"),
        ("x |= idx[i];", "|:x"),
        ("ok = ok && a[i] > 0;", "&&:ok"),
    ],
)
def test_omp_reduction(statement: str, expected: str) -> None:
    name = expected.split(":")[1]
    s = first(
        "double s = 0; int x = 0, ok = 1;\n"
        f"for (int i = 0; i < n; i++) {{ {statement} }}\nreturn {name};",
        OMP_CPU,
    )
    assert clauses(s) == {"reduction": expected}


def test_omp_two_reductions_with_the_same_operator_share_a_clause() -> None:
    s = first(
        "double s = 0, q = 0;\n"
        "for (int i = 0; i < n; i++) { s += a[i]; q += a[i] * a[i]; }\n"
        "return s + q;",
        OMP_CPU,
    )
    assert clauses(s) == {"reduction": "+:q, s"}


def test_omp_triangular_nest_gets_dynamic_schedule() -> None:
    (s,) = suggest(
        "for (int i = 0; i < n; i++)\n  for (int j = 0; j < i; j++) b[i*n+j] = a[j];",
        OMP_CPU,
    )
    assert clauses(s) == {"schedule": "dynamic"}


def test_omp_rectangular_nest_of_open_size_is_shared_out_by_rows() -> None:
    # The outer loop alone feeds every thread; `collapse` would only add index
    # arithmetic and take the inner loop from the vectorizer.
    (s,) = suggest(
        "for (int i = 0; i < n; i++)\n  for (int j = 0; j < m; j++) b[i*m+j] = a[j];",
        OMP_CPU,
    )
    assert clauses(s) == {}
    assert s.collapsed == ()


def test_omp_short_outer_loop_is_collapsed() -> None:
    # Three channels cannot feed a node's threads: fold the rows in.
    (s,) = suggest(
        "for (int c = 0; c < 3; c++)\n"
        "  for (int j = 0; j < m; j++) b[c*m+j] = a[j] * c;",
        OMP_CPU,
    )
    assert clauses(s) == {"collapse": "2"}


def test_omp_rows_of_data_dependent_length_get_dynamic_schedule() -> None:
    s = first(
        "for (int i = 0; i < n; i++) {\n"
        "  double s = 0.0;\n"
        "  for (int k = row[i]; k < row[i + 1]; k++) s += a[k];\n"
        "  y[i] = s;\n"
        "}",
        OMP_CPU,
        params="int n, const int *restrict row, double *restrict y, "
        "const double *restrict a",
    )
    assert clauses(s) == {"schedule": "dynamic"}
    assert any("through data (`row[i] .. row[i + 1]`)" in r for r in s.reasons)


def test_omp_inner_loop_of_a_parallel_loop_gets_nothing() -> None:
    found = suggest(
        """\
        for (int i = 0; i < n; i++) {
          b[i] = 0;
          for (int j = 0; j < m; j++) c[i*m+j] = a[j];
        }
        """,
        OMP_CPU,
    )
    assert [s.loop.var for s in found] == ["i"]


def test_omp_loop_inside_a_parallel_region_is_a_worksharing_for() -> None:
    s = first(
        "#pragma omp parallel\n{\n  for (int i = 0; i < n; i++) b[i] = a[i];\n}",
        OMP_CPU,
    )
    assert directive(s) == "for"


# ----- OpenMP offload --------------------------------------------------------------


def test_omp_target_maps_inputs_outputs_and_both() -> None:
    s = first("for (int i = 0; i < n; i++) { b[i] = a[i]; c[i] += a[i]; }", OMP_GPU)
    assert directive(s) == "target teams distribute parallel for"
    assert clauses(s) == {
        "map(to)": "a[0:n]",
        "map(from)": "b[0:n]",
        "map(tofrom)": "c[0:n]",
    }


def test_omp_target_maps_a_reduction_scalar_back() -> None:
    s = first(
        "double s = 0;\nfor (int i = 0; i < n; i++) s += a[i];\nreturn s;", OMP_GPU
    )
    assert clauses(s) == {
        "reduction": "+:s",
        "map(to)": "a[0:n]",
        "map(tofrom)": "s",
    }


def test_omp_target_refuses_a_lastprivate_scalar() -> None:
    s = first(
        "double last = 0;\nfor (int i = 0; i < n; i++) last = a[i];\nreturn last;",
        OMP_GPU,
    )
    assert s.pragma is None


def test_omp_loop_inside_target_teams_is_distribute_parallel_for() -> None:
    s = first(
        """\
        #pragma omp target teams map(to: a[0:n]) map(from: b[0:n])
        {
          for (int i = 0; i < n; i++) b[i] = a[i];
        }
        """,
        OMP_GPU,
    )
    assert directive(s) == "distribute parallel for"
    assert clauses(s) == {}


def test_omp_target_inside_a_target_data_region_does_not_map_again() -> None:
    s = first(
        """\
        #pragma omp target data map(to: a[0:n])
        {
          for (int i = 0; i < n; i++) b[i] = a[i];
        }
        """,
        OMP_GPU,
    )
    assert clauses(s) == {"map(from)": "b[0:n]"}


# ----- refusals ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("for (int i = 1; i < n; i++) b[i] = b[i-1] + a[i];", "dependence"),
        ("for (int i = 0; i < n - 1; i++) b[i] = b[i+1] * 2;", "dependence"),
        ("for (int i = 0; i < n; i++) { if (a[i] < 0) break; b[i] = 1; }", "exit"),
        ("for (int i = 0; i < n; i++) { if (a[i] < 0) return 1; }", "exit"),
        ("for (int i = 0; i < n; i++) b[i] = g(a[i]);", "call"),
        ('for (int i = 0; i < n; i++) printf("%f", a[i]);', "call"),
        ("for (int i = 0; i < n; i++) b[idx[i]] = a[i];", "dependence"),
        ("for (int i = 0; i < n; i++) { b[i] = a[i]; n--; }", "bound"),
        ("for (int i = 0; i < n; i += m) { b[i] = a[i]; m = i % 3 + 1; }", "shape"),
        ("for (double x = 0; x < 1; x += 1) b[0] = x;", "shape"),
    ],
    ids=[
        "prefix-sum",
        "anti-dependence",
        "break",
        "return",
        "unknown-call",
        "io-call",
        "indirect-write",
        "changing-bound",
        "variable-step",
        "floating-variable",
    ],
)
def test_refusal(body: str, code: str) -> None:
    for opts in (ACC, OMP_CPU):
        s = first(body, opts)
        assert refused(s)
        assert code in obstacle_codes(s)
        assert s.reasons


def test_loop_invariant_variable_step_is_canonical_and_assumed_positive() -> None:
    s = first("for (int i = 0; i < n; i += m) b[i] = a[i];", OMP_CPU)
    assert not refused(s)
    assert any("assumed positive" in r for r in s.reasons)
    # Offloaded, the elements it touches are not known: no data clause.
    assert refused(first("for (int i = 0; i < n; i += m) b[i] = a[i];", ACC))


def test_pure_function_defined_in_the_file_is_allowed() -> None:
    s = first(
        "for (int i = 0; i < n; i++) b[i] = sq(a[i]);",
        OMP_CPU,
        prelude="static double sq(double x) { return x * x; }\n",
    )
    assert s.pragma is not None
    assert s.facts.pure_calls == ("sq",)


def test_function_writing_a_global_is_refused() -> None:
    s = first(
        "for (int i = 0; i < n; i++) b[i] = tick(a[i]);",
        OMP_CPU,
        prelude="int calls;\nstatic double tick(double x) { calls++; return x; }\n",
    )
    assert refused(s)
    assert obstacle_codes(s) == {"call"}


def test_math_library_call_is_allowed() -> None:
    s = first("for (int i = 0; i < n; i++) b[i] = sqrt(a[i]);", OMP_CPU)
    assert rendered(s) == "#pragma omp parallel for"
    assert obstacle_codes(s) == set()


ALIASING = "int n, double *x, double *y"


def test_pointer_parameters_without_restrict_may_alias() -> None:
    s = first("for (int i = 0; i < n; i++) x[i] = y[i] * 2;", params=ALIASING)
    assert refused(s)
    assert obstacle_codes(s) == {"alias"}
    assert all(o.assumption for o in s.facts.obstacles)


def test_assume_no_alias_accepts_pointer_parameters() -> None:
    s = first(
        "for (int i = 0; i < n; i++) x[i] = y[i] * 2;", params=ALIASING, no_alias=True
    )
    assert clauses(s) == {"copyin": "y[0:n]", "copyout": "x[0:n]"}
    assert s.facts.assumptions


def test_pointers_to_different_primitive_types_do_not_alias() -> None:
    s = first(
        "for (int i = 0; i < n; i++) x[i] = k[i];", params="int n, double *x, int *k"
    )
    assert clauses(s) == {"copyin": "k[0:n]", "copyout": "x[0:n]"}
    assert not s.facts.assumptions  # proved from the types, not assumed


def test_char_pointer_may_alias_anything() -> None:
    s = first(
        "for (int i = 0; i < n; i++) x[i] = k[i];", params="int n, double *x, char *k"
    )
    assert obstacle_codes(s) == {"alias"}


def test_malloced_local_does_not_alias_a_parameter() -> None:
    s = first(
        "double *t = malloc(n * sizeof *t);\nfor (int i = 0; i < n; i++) t[i] = x[i];",
        OMP_CPU,
        params=ALIASING,
    )
    assert rendered(s) == "#pragma omp parallel for"
    assert not s.facts.assumptions  # proved from the allocation, not assumed


# ----- nests and refusals of an outer loop ---------------------------------------


def test_outer_refusal_comes_before_the_parallel_inner_loop() -> None:
    outer, inner = suggest(
        """\
        for (int t = 1; t < m; t++)
          for (int i = 0; i < n; i++)
            c[t*n+i] = c[(t-1)*n+i] + a[i];
        """,
        OMP_CPU,
    )
    assert (outer.loop.var, outer.pragma) == ("t", None)
    assert (inner.loop.var, directive(inner)) == ("i", "parallel for")


# ----- histograms and atomics --------------------------------------------------------


HISTOGRAM = """\
for (int i = 0; i < n; i++)
  h[idx[i]]++;
"""
RESTRICT_HISTOGRAM = "int n, const int *restrict idx, int *restrict h"


def test_omp_histogram_with_restrict_gets_an_atomic_update() -> None:
    s = first(HISTOGRAM, OMP_CPU, params=RESTRICT_HISTOGRAM)
    assert directive(s) == "parallel for"
    (atomic,) = s.atomics
    assert atomic.pragma.render() == "#pragma omp atomic update"
    assert atomic.span.line == s.loop.line + 1


def test_acc_histogram_of_a_static_array_copies_it_and_updates_atomically() -> None:
    s = first("int h[16];\n" + HISTOGRAM, ACC, params="int n, const int *restrict idx")
    assert clauses(s) == {"copy": "h", "copyin": "idx[0:n]"}
    assert [a.pragma.render() for a in s.atomics] == ["#pragma acc atomic update"]


def test_acc_histogram_through_a_pointer_cannot_be_moved_and_is_refused() -> None:
    s = first(HISTOGRAM, ACC, params=RESTRICT_HISTOGRAM)
    assert s.pragma is None
    assert s.atomics == ()


def test_histogram_without_restrict_is_refused_for_aliasing() -> None:
    s = first(HISTOGRAM, OMP_CPU, params="int n, const int *idx, int *h")
    assert refused(s)
    assert obstacle_codes(s) == {"alias"}


def test_histogram_on_the_line_of_the_for_gets_its_atomic() -> None:
    # The annotation breaks the line and puts `atomic update` above `h[..]++`.
    s = first(
        "for (int i = 0; i < n; i++) h[idx[i]]++;",
        OMP_CPU,
        params=RESTRICT_HISTOGRAM,
    )
    assert s.pragma is not None
    assert len(s.atomics) == 1


def test_indirect_update_that_also_reads_the_array_is_refused() -> None:
    s = first(
        "for (int i = 0; i < n; i++)\n  h[idx[i]] += h[0];",
        OMP_CPU,
        params=RESTRICT_HISTOGRAM,
    )
    assert refused(s)
    assert s.facts.atomics == ()


# ----- bugs: references the analysis never sees -------------------------------------


def test_dependence_in_an_else_branch_is_refused() -> None:
    s = first(
        """\
        for (int i = 0; i < n - 1; i++) {
          if (a[i] > 0) b[i] = 1;
          else b[i+1] = b[i] + 1;
        }
        """
    )
    pragma = rendered(s)
    assert pragma is None


def test_return_in_an_else_branch_is_refused() -> None:
    s = first(
        "for (int i = 0; i < n; i++) { if (a[i] > 0) b[i] = 1; else return 1; }",
        OMP_CPU,
    )
    pragma = rendered(s)
    assert pragma is None


def test_dependence_inside_deeply_nested_blocks_is_refused() -> None:
    body = "{" * 210 + "b[i+1] = b[i];" + "}" * 210
    s = first(f"for (int i = 0; i < n - 1; i++) {{\n{body}\n}}")
    pragma = rendered(s)
    assert pragma is None


def test_dependence_at_the_bottom_of_a_long_expression_is_refused() -> None:
    s = first("for (int i = 0; i < n - 1; i++)\n  b[i+1] = b[i]" + " + 1" * 250 + ";")
    pragma = rendered(s)
    assert pragma is None


def test_deep_nest_with_a_carried_update_is_refused() -> None:
    depth = 100
    heads = "".join(f"for (int i{d} = 0; i{d} < n; i{d}++) {{\n" for d in range(depth))
    s = first(heads + f"b[i{depth - 1}] += 1;\n" + "}\n" * depth)
    pragma = rendered(s)
    assert pragma is None
