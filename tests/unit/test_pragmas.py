"""Pragma text: `parse_directive`, `parse_pragma` and `Pragma.render`."""

from __future__ import annotations

import pytest
from accls.frontend import Clause, Span, parse_directive
from accls.suggest import Dialect, Pragma, parse_pragma

Clauses = list[tuple[str, str | None]]


def clause_pairs(text: str) -> tuple[str, str, Clauses]:
    """(dialect, directive name, [(clause, args)]) of a pragma line."""
    found = parse_directive(text)
    assert found is not None, text
    return found.dialect, found.name, [(c.name, c.args) for c in found.clauses]


# ----- parse_directive ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dialect", "name", "clauses"),
    [
        ("#pragma acc parallel loop", "acc", "parallel loop", []),
        (
            "#pragma acc parallel loop copyin(a[0:n]) copyout(b[0:n])",
            "acc",
            "parallel loop",
            [("copyin", "a[0:n]"), ("copyout", "b[0:n]")],
        ),
        (
            "#pragma acc kernels loop independent",
            "acc",
            "kernels loop",
            [("independent", None)],
        ),
        (
            "#pragma acc loop gang(dim:2) vector(128)",
            "acc",
            "loop",
            [("gang", "dim:2"), ("vector", "128")],
        ),
        ("#pragma acc loop seq", "acc", "loop", [("seq", None)]),
        (
            "#pragma acc loop independent collapse(2)",
            "acc",
            "loop",
            [("independent", None), ("collapse", "2")],
        ),
        (
            "#pragma acc parallel loop gang vector_length(128)",
            "acc",
            "parallel loop",
            [("gang", None), ("vector_length", "128")],
        ),
        (
            "#pragma acc data copyin(a[0:n]) create(t[0:n])",
            "acc",
            "data",
            [("copyin", "a[0:n]"), ("create", "t[0:n]")],
        ),
        (
            "#pragma acc enter data copyin(a[0:n])",
            "acc",
            "enter data",
            [("copyin", "a[0:n]")],
        ),
        ("#pragma acc exit data delete(a)", "acc", "exit data", [("delete", "a")]),
        ("#pragma acc update host(a[0:n])", "acc", "update", [("host", "a[0:n]")]),
        ("#pragma acc atomic update", "acc", "atomic update", []),
        ("#pragma acc atomic capture", "acc", "atomic", [("capture", None)]),
        ("#pragma acc routine seq", "acc", "routine", [("seq", None)]),
        ("#pragma omp parallel for", "omp", "parallel for", []),
        ("#pragma omp parallel for simd", "omp", "parallel for simd", []),
        (
            "#pragma omp target teams distribute parallel for map(to: a[0:n])",
            "omp",
            "target teams distribute parallel for",
            [("map", "to: a[0:n]")],
        ),
        (
            "#pragma omp parallel for reduction(+ : s) private(t, u)",
            "omp",
            "parallel for",
            [("reduction", "+ : s"), ("private", "t, u")],
        ),
        (
            "#pragma omp parallel for schedule(dynamic, 4)",
            "omp",
            "parallel for",
            [("schedule", "dynamic, 4")],
        ),
        (
            "#pragma omp parallel for if(parallel: n > 10)",
            "omp",
            "parallel for",
            [("if", "parallel: n > 10")],
        ),
        (
            "#pragma omp for ordered(2) nowait",
            "omp",
            "for",
            [("ordered", "2"), ("nowait", None)],
        ),
        ("#pragma omp atomic update", "omp", "atomic update", []),
        ("#pragma omp atomic read", "omp", "atomic", [("read", None)]),
        ("#pragma omp declare target", "omp", "declare target", []),
        ("#pragma omp end declare target", "omp", "end declare target", []),
        ("#pragma omp teams loop", "omp", "teams loop", []),
        ("#pragma omp taskloop grainsize(4)", "omp", "taskloop", [("grainsize", "4")]),
    ],
)
def test_directive_name_and_clauses(
    text: str, dialect: str, name: str, clauses: Clauses
) -> None:
    assert clause_pairs(text) == (dialect, name, clauses)


@pytest.mark.parametrize(
    "text",
    [
        "# pragma omp parallel for private(t)",
        "  #  pragma   omp   parallel   for   private(t)",
        "#pragma omp parallel for private (t)",
        "#pragma\tomp\tparallel for private(t)",
        "#pragma omp parallel for private(t)\n",
        "#pragma omp parallel for private(t)\r\n",
        "#pragma omp parallel for private(t) // the hot loop",
    ],
)
def test_spacing_variants_parse_alike(text: str) -> None:
    assert clause_pairs(text) == ("omp", "parallel for", [("private", "t")])


def test_backslash_continuations_are_joined() -> None:
    text = "#pragma acc parallel loop \\\n    copyin(a[0:n]) \\\n    reduction(+:s)"
    assert clause_pairs(text) == (
        "acc",
        "parallel loop",
        [("copyin", "a[0:n]"), ("reduction", "+:s")],
    )


def test_backslash_continuation_with_crlf_is_joined() -> None:
    text = "#pragma acc parallel loop \\\r\n  copy(a[0:n])"
    assert clause_pairs(text) == ("acc", "parallel loop", [("copy", "a[0:n]")])


def test_continuation_inside_the_directive_name() -> None:
    assert clause_pairs("#pragma omp parallel \\\nfor") == ("omp", "parallel for", [])


def test_nested_parentheses_stay_in_one_clause() -> None:
    text = "#pragma acc parallel loop copyin(a[0:(n+1)*(m-1)], b[f(i):g(j, k)])"
    assert clause_pairs(text)[2] == [("copyin", "a[0:(n+1)*(m-1)], b[f(i):g(j, k)]")]


def test_commas_between_clauses_are_separators() -> None:
    assert clause_pairs("#pragma acc parallel loop, gang, vector")[2] == [
        ("gang", None),
        ("vector", None),
    ]


def test_text_is_flattened_and_span_kept() -> None:
    span = Span(0, 10, (3, 0), (4, 5))
    found = parse_directive("#pragma acc loop \\\n  gang", span)
    assert found is not None
    assert found.text == "#pragma acc loop gang"
    assert found.span == span


@pytest.mark.parametrize(
    "text",
    [
        "#pragma once",
        "#pragma GCC ivdep",
        '#pragma GCC optimize("O3")',
        "#pragma clang loop vectorize(enable)",
        "#pragma unroll 4",
        "#pragma accx parallel",
        "#pragma ompx parallel",
        "#define acc 1",
        "#include <omp.h>",
        "pragma omp parallel for",
        "// #pragma omp parallel for",
        "",
    ],
)
def test_other_lines_are_not_directives(text: str) -> None:
    assert parse_directive(text) is None
    assert parse_pragma(text) is None


def test_omp_target_update_is_one_directive() -> None:
    assert clause_pairs("#pragma omp target update to(a[0:n])") == (
        "omp",
        "target update",
        [("to", "a[0:n]")],
    )


def test_omp_bare_ordered_clause_is_a_clause() -> None:
    assert clause_pairs("#pragma omp parallel for ordered") == (
        "omp",
        "parallel for",
        [("ordered", None)],
    )


def test_block_comment_inside_a_pragma_is_skipped() -> None:
    assert clause_pairs("#pragma acc data /* inputs */ copyin(a[0:n])") == (
        "acc",
        "data",
        [("copyin", "a[0:n]")],
    )


# ----- parse_pragma and render -------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "#pragma acc parallel loop",
        "#pragma acc parallel loop copyin(a[0:n]) copyout(b[0:n])",
        "#pragma acc parallel loop gang collapse(2) private(t) reduction(+:s)",
        "#pragma acc loop vector reduction(max:m)",
        "#pragma acc loop gang(dim:2) vector(128)",
        "#pragma acc kernels loop independent",
        "#pragma acc atomic update",
        "#pragma acc data copyin(a[0:(n+1)*(m-1)])",
        "#pragma omp parallel for",
        "#pragma omp parallel for private(t) lastprivate(i) reduction(+:s)",
        "#pragma omp parallel for schedule(dynamic)",
        "#pragma omp parallel for collapse(2) schedule(static, 16)",
        "#pragma omp target teams distribute parallel for map(to: a[0:n]) "
        "map(from: b[0:n]) map(tofrom: s)",
        "#pragma omp atomic update",
        "#pragma omp for nowait",
    ],
)
def test_canonical_pragma_round_trips(text: str) -> None:
    pragma = parse_pragma(text)
    assert pragma is not None
    assert pragma.render() == text
    assert parse_pragma(pragma.render()) == pragma


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("# pragma omp parallel for", "#pragma omp parallel for"),
        (
            "  #pragma  acc  parallel  loop  copy( a[0:n] )",
            "#pragma acc parallel loop copy(a[0:n])",
        ),
        (
            "#pragma acc parallel loop \\\n  copyin(a[0:n])",
            "#pragma acc parallel loop copyin(a[0:n])",
        ),
        ("#pragma omp parallel for private (t)", "#pragma omp parallel for private(t)"),
    ],
)
def test_non_canonical_spellings_render_canonically(text: str, canonical: str) -> None:
    pragma = parse_pragma(text)
    assert pragma is not None
    assert pragma.render() == canonical


def test_parse_pragma_sets_the_dialect() -> None:
    acc = parse_pragma("#pragma acc loop")
    omp = parse_pragma("#pragma omp for")
    assert acc is not None
    assert omp is not None
    assert (acc.dialect, omp.dialect) == (Dialect.OPENACC, Dialect.OPENMP)


@pytest.mark.parametrize("text", ["#pragma omp", "#pragma acc", "#pragma acc copy(a)"])
def test_pragma_without_a_directive_is_none(text: str) -> None:
    assert parse_pragma(text) is None


def test_render_of_a_constructed_pragma() -> None:
    pragma = Pragma(
        Dialect.OPENACC,
        "parallel loop",
        (Clause("gang"), Clause("copyin", "a[0:n]"), Clause("reduction", "+:s")),
    )
    assert pragma.render() == (
        "#pragma acc parallel loop gang copyin(a[0:n]) reduction(+:s)"
    )


def test_clause_lookup_by_name() -> None:
    pragma = parse_pragma("#pragma omp parallel for private(t) reduction(+:s)")
    assert pragma is not None
    assert pragma.clause("reduction") == Clause("reduction", "+:s")
    assert pragma.clause("schedule") is None


@pytest.mark.parametrize(
    "text",
    [
        "#pragma omp critical(name)",
        "#pragma acc wait(1) async(2)",
        "#pragma omp flush(a)",
    ],
)
def test_directive_with_an_argument_round_trips(text: str) -> None:
    pragma = parse_pragma(text)
    assert pragma is not None
    assert pragma.render() == text


def test_unbalanced_clause_is_not_dropped_silently() -> None:
    pragma = parse_pragma("#pragma acc parallel loop copyin(a[0:n]")
    assert pragma is None or pragma.clause("copyin") is not None
