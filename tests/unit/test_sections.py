"""Array sections for data clauses, and when `copyout` is safe."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze_text
from accls.analysis.array_sections import ArrayUse, array_uses, union_section
from accls.frontend import Poly, SourceFile, Var, parse_source
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

PARAMS = (
    "int n, int m, const double *restrict a, double *restrict b, "
    "double *restrict c, const int *restrict idx"
)
DATA = frozenset({"copy", "copyin", "copyout", "create", "present"})


def program(body: str, params: str, prelude: str) -> str:
    return f"{dedent(prelude)}void f({params}) {{\n{dedent(body)}\n}}\n"


def _decl(source: SourceFile, name: str) -> Var | None:
    fn = source.functions[0]
    return fn.lookup(name) or next((g for g in source.globals if g.name == name), None)


def uses(body: str, params: str = PARAMS, prelude: str = "") -> dict[str, ArrayUse]:
    """How the first loop nest of `body` uses each array, by name."""
    source = parse_source(program(body, params, prelude))
    loop = source.nests[0]
    names = {r.name for r in loop.refs if r.subscripts or r.deref}
    found = array_uses(loop, {name: _decl(source, name) for name in names})
    return {use.name: use for use in found}


def data(body: str, params: str = PARAMS, prelude: str = "") -> dict[str, str]:
    """Data clauses of the OpenACC pragma for the first loop: kind -> items."""
    analysis = analyze_text(program(body, params, prelude))
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    suggestion = suggest_file(analysis, opts)[0]
    assert suggestion.pragma is not None, suggestion.reasons
    return {c.name: c.args or "" for c in suggestion.pragma.clauses if c.name in DATA}


def section(
    body: str, name: str, params: str = PARAMS, prelude: str = ""
) -> str | None:
    return uses(body, params, prelude)[name].section


# ----- extents -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("for (int i = 0; i < n; i++) b[i] = a[i];", "a[0:n]"),
        ("for (int i = 0; i <= n; i++) b[i] = a[i];", "a[0:n + 1]"),
        ("for (int i = 2; i < n; i++) b[i] = a[i];", "a[2:(n - 2 > 0 ? n - 2 : 0)]"),
        ("for (int i = n - 1; i >= 0; i--) b[i] = a[i];", "a[0:n]"),
        ("for (int i = n; i > 0; i--) b[i] = a[i];", "a[1:n]"),
        ("for (int i = 0; i < n; i++) b[i] = a[i+1];", "a[1:n]"),
        ("for (int i = 0; i < n; i++) b[i] = a[i+1] - a[i];", "a[0:n + 1]"),
        ("for (int i = 1; i < n - 1; i++) b[i] = a[i-1] + a[i+1];", "a[0:n]"),
        (
            "for (int i = 0; i < n; i++) b[i] = a[2*i];",
            "a[0:(2*n - 1 > 0 ? 2*n - 1 : 0)]",
        ),
        ("for (int i = 0; i < n; i++) b[i] = a[n - 1 - i];", "a[0:n]"),
    ],
)
def test_one_dimensional_section(body: str, expected: str) -> None:
    assert section(body, "a") == expected


def test_triangular_inner_bound_uses_the_outer_extreme() -> None:
    body = "for (int i = 0; i < n; i++)\n  for (int j = 0; j < i; j++) b[i] += a[j];"
    assert section(body, "a") == "a[0:(n - 1 > 0 ? n - 1 : 0)]"


@pytest.mark.parametrize("long_first", [True, False])
def test_sibling_loops_reusing_a_name_each_bound_their_own_references(
    long_first: bool,
) -> None:
    # Two loops both called `y`: `a[x*5*n + y]` runs in the long one, so the
    # section must reach 25*n, not the 20*n + 5 of the short one's `y < 5`.
    long = "for (int y = 0; y < 5 * n; y++) c[x] += a[x * 5 * n + y];"
    short = "for (int y = 0; y < 5; y++) b[x * 5 + y] = c[x];"
    first, second = (long, short) if long_first else (short, long)
    body = f"for (int x = 0; x < 5; x++) {{\n  {first}\n  {second}\n}}"
    assert section(body, "a") == "a[0:25*n]"
    assert section(body, "b") == "b[0:25]"


def test_upper_triangle_section() -> None:
    body = "for (int i = 0; i < n; i++)\n  for (int j = i; j < n; j++) b[i] += a[j];"
    assert section(body, "a") == "a[0:n]"


def test_linearized_subscript_covers_the_whole_matrix() -> None:
    body = (
        "for (int i = 0; i < n; i++)\n"
        "  for (int j = 0; j < m; j++) b[i*m+j] = a[i*m+j];"
    )
    assert section(body, "a") == "a[0:m*n]"


def test_linearized_triangle_stops_at_the_last_element_touched() -> None:
    body = "for (int i = 0; i < n; i++)\n  for (int j = 0; j < i; j++) c[i*n+j] = a[j];"
    assert section(body, "c") == "c[0:(n*n - 1 > 0 ? n*n - 1 : 0)]"


def test_pointer_to_pointer_gets_one_range_per_dimension() -> None:
    body = "for (int i = 0; i < n; i++)\n  for (int j = 1; j < m; j++) B[i][j] = 0;"
    assert section(body, "B", params="int n, int m, double **restrict B") == (
        "B[0:n][1:(m - 1 > 0 ? m - 1 : 0)]"
    )


def test_static_array_is_named_whole() -> None:
    body = "double s[100];\nfor (int i = 0; i < n; i++) b[i] = s[i];"
    use = uses(body)["s"]
    assert (use.section, use.known) == (None, True)


def test_global_static_array_is_named_whole_in_the_clause() -> None:
    got = data("for (int i = 0; i < 100; i++) G[i] = a[i];", prelude="double G[100];\n")
    assert got == {"copyin": "a[0:100]", "copyout": "G"}


def test_array_parameter_gets_a_section_not_its_name() -> None:
    body = "for (int i = 0; i < n; i++) A[i][0] = 0;"
    use = uses(body, params="int n, double A[100][100]")["A"]
    # whole rows: `A[0:n][0:1]` is not contiguous storage
    assert use.section == "A[0:n][0:100]"
    assert not use.exact_cover


def test_indirect_subscript_has_no_known_section() -> None:
    use = uses("for (int i = 0; i < n; i++) b[i] = a[idx[i]];")["a"]
    assert (use.section, use.known) == (None, False)


def test_non_affine_extent_is_unknown() -> None:
    use = uses("for (int i = 0; i < n; i++) b[i] = a[i*i];")["a"]
    assert not use.known


def test_mixed_rank_references_are_unknown() -> None:
    body = "for (int i = 0; i < n; i++) { B[i][0] = 0; (*B)[i] = 1; }"
    use = uses(body, params="int n, double **restrict B")["B"]
    assert not use.known


# ----- read and write flags -----------------------------------------------------


def test_read_only_array() -> None:
    use = uses("for (int i = 0; i < n; i++) b[i] = a[i];")["a"]
    assert (use.read, use.written, use.read_first) == (True, False, True)


def test_read_modify_write_is_copied_both_ways() -> None:
    assert data("for (int i = 0; i < n; i++) b[i] = b[i] + a[i];") == {
        "copy": "b[0:n]",
        "copyin": "a[0:n]",
    }


def test_array_written_before_it_is_read() -> None:
    use = uses("for (int i = 0; i < n; i++) { b[i] = a[i]; c[i] = b[i]; }")["b"]
    assert (use.read, use.written, use.read_first) == (True, True, False)


# ----- copyout only with full cover -----------------------------------------------


def test_every_element_written_is_copied_out() -> None:
    assert data("for (int i = 0; i < n; i++) b[i] = a[i];") == {
        "copyin": "a[0:n]",
        "copyout": "b[0:n]",
    }


def test_full_cover_in_two_dimensions_is_copied_out() -> None:
    got = data(
        "for (int i = 0; i < n; i++)\n  for (int j = 0; j < m; j++) B[i][j] = 0;",
        params="int n, int m, double *restrict *restrict B",
    )
    assert got == {"copyout": "B[0:n][0:m]"}


def test_static_array_written_whole_is_copied_out() -> None:
    got = data("for (int i = 0; i < 100; i++) G[i] = 0;", prelude="double G[100];\n")
    assert got == {"copyout": "G"}


def test_static_array_written_in_part_is_copied_both_ways() -> None:
    got = data("for (int i = 0; i < n; i++) G[i] = 0;", prelude="double G[100];\n")
    assert got == {"copy": "G"}


@pytest.mark.parametrize(
    "body",
    [
        "for (int i = 0; i < n; i++) b[2*i] = a[i];",
        "for (int i = 0; i < n; i += 2) b[i] = a[i];",
        "for (int i = 0; i < n; i++) { if (a[i] > 0) b[i] = a[i]; }",
        "for (int i = 0; i < n; i++) { b[i] = 0; b[i+1] = 1; }",
        "for (int i = 0; i < n; i++)\n  for (int j = 0; j < i; j++) b[i*n+j] = a[j];",
    ],
    ids=[
        "stride-2-subscript",
        "stride-2-loop",
        "conditional-write",
        "two-subscripts",
        "triangle",
    ],
)
def test_possible_holes_are_copied_both_ways(body: str) -> None:
    use = uses(body)["b"]
    assert use.written
    assert not use.exact_cover


def test_hole_from_a_stride_uses_copy_in_the_pragma() -> None:
    assert data("for (int i = 0; i < n; i++) b[2*i] = a[i];") == {
        "copy": "b[0:(2*n - 1 > 0 ? 2*n - 1 : 0)]",
        "copyin": "a[0:n]",
    }


def test_conditional_write_uses_copy_in_the_pragma() -> None:
    got = data("for (int i = 0; i < n; i++) { if (a[i] > 0) b[i] = a[i]; }")
    assert got == {"copy": "b[0:n]", "copyin": "a[0:n]"}


def test_write_skipped_by_continue_uses_copy() -> None:
    got = data(
        """\
        for (int i = 0; i < n; i++) {
          if (a[i] < 0) continue;
          b[i] = a[i];
        }
        """
    )
    assert got == {"copy": "b[0:n]", "copyin": "a[0:n]"}


def test_write_after_an_inner_break_uses_copy() -> None:
    got = data(
        """\
        for (int i = 0; i < n; i++) {
          for (int j = 0; j < m; j++) {
            if (a[j] < 0) break;
            B[i][j] = a[j];
          }
        }
        """,
        params="int n, int m, const double *restrict a, double *restrict *restrict B",
    )
    assert got == {"copy": "B[0:n][0:m]", "copyin": "a[0:m]"}


# ----- contiguous storage ------------------------------------------------------------

GRID = "int n, int m, double a[n][m], const double b[n][m]"
STENCIL = """
for (int i = 1; i < n - 1; i++)
  for (int j = 1; j < m - 1; j++)
    a[i][j] = b[i-1][j] + b[i+1][j] + b[i][j-1] + b[i][j+1];
"""


def test_inner_dimension_of_a_partial_block_is_widened_to_whole_rows() -> None:
    # `a[1:n-2][1:m-2]` is not contiguous: gcc and clang reject it, or it maps
    # the hull and copies the untouched row ends back as device garbage.
    found = uses(STENCIL, GRID)["a"]
    assert found.section == "a[1:(n - 2 > 0 ? n - 2 : 0)][0:m]"
    assert not found.exact_cover
    assert data(STENCIL, GRID) == {
        "copy": "a[1:(n - 2 > 0 ? n - 2 : 0)][0:m]",
        "copyin": "b[0:n][0:m]",
    }


ROWS = "int n, int m, double (*restrict a)[64], const double (*restrict b)[64]"


def test_partial_rows_of_a_pointer_to_rows_are_widened_to_whole_rows() -> None:
    # `double (*a)[64]` stores its rows back to back like `a[n][64]`: the section
    # `a[1:n-2][1:m-2]` has holes, so it maps the hull (or fails to compile) and
    # copyout would write device garbage over the untouched ends of each row.
    found = uses(STENCIL, ROWS)["a"]
    assert found.section == "a[1:(n - 2 > 0 ? n - 2 : 0)][0:64]"
    assert not found.exact_cover
    assert data(STENCIL, ROWS) == {
        "copy": "a[1:(n - 2 > 0 ? n - 2 : 0)][0:64]",
        "copyin": "b[0:n][0:64]",
    }


def test_partial_rows_of_a_typedef_row_type_move_whole_rows() -> None:
    # `row_t *a` with `typedef double row_t[64]`: the rows are stored back to back
    # and their extent is not in the declaration, so the section names whole
    # `row_t` elements (never the hole-y `a[1:n - 2][1:m - 2]`).
    prelude = "typedef double row_t[64];\n"
    params = "int n, int m, row_t *restrict a, const row_t *restrict b"
    found = uses(STENCIL, params, prelude)["a"]
    assert found.section == "a[1:(n - 2 > 0 ? n - 2 : 0)]"
    assert not found.exact_cover
    assert data(STENCIL, params, prelude) == {
        "copy": "a[1:(n - 2 > 0 ? n - 2 : 0)]",
        "copyin": "b[0:n]",
    }


def test_rows_reached_through_pointers_keep_their_partial_sections() -> None:
    # `double **a`: each row is an object of its own, moved on its own.
    found = uses(STENCIL, "int n, int m, double **restrict a, double **restrict b")
    assert (
        found["a"].section == "a[1:(n - 2 > 0 ? n - 2 : 0)][1:(m - 2 > 0 ? m - 2 : 0)]"
    )
    assert found["a"].exact_cover


def test_full_rows_keep_copyout() -> None:
    body = """
    for (int i = 1; i < n - 1; i++)
      for (int j = 0; j < m; j++)
        a[i][j] = b[i][j];
    """
    found = uses(body, GRID)["a"]
    assert found.section == "a[1:(n - 2 > 0 ? n - 2 : 0)][0:m]"
    assert found.exact_cover


def test_one_row_may_keep_a_partial_inner_section() -> None:
    body = """
    for (int j = 1; j < m - 1; j++)
      a[2][j] = b[2][j];
    """
    assert section(body, "a", GRID) == "a[2:1][1:(m - 2 > 0 ? m - 2 : 0)]"


@pytest.mark.parametrize(
    ("inner", "covered"),
    [
        ("for (int t = 0; t < m; t++)", False),  # m may be 0: a[i] never written
        ("for (int t = m; t > 0; t--)", False),
        ("for (int t = 0; t < 4; t++)", True),  # surely runs
        ("for (int t = 3; t >= 0; t--)", True),
    ],
)
def test_copyout_needs_every_loop_around_the_write_to_run(
    inner: str, covered: bool
) -> None:
    body = f"""
    for (int i = 0; i < n; i++)
      {inner}
        b[i] = a[i] * t;
    """
    assert uses(body)["b"].exact_cover is covered
    assert ("copyout" in data(body)) is covered


def _row_use(row: int, start: int, length: int) -> ArrayUse:
    box = ((Poly.const(row), Poly.const(1)), (Poly.const(start), Poly.const(length)))
    return ArrayUse(
        name="a",
        read=True,
        written=False,
        read_first=True,
        section=f"a[{row}:1][{start}:{length}]",
        exact_cover=False,
        known=True,
        box=box,
    )


def test_union_of_partial_rows_of_different_widths_is_not_a_section() -> None:
    # a[2:2][0:5] would not be contiguous storage either: no section at all.
    assert union_section([_row_use(2, 1, 3), _row_use(3, 0, 5)]) == (None, False)
    # the same columns of one row stay a section
    assert union_section([_row_use(2, 1, 3), _row_use(2, 0, 5)]) == (
        "a[2:1][0:5]",
        True,
    )
