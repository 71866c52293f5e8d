"""Header inductions: the tested variable leads, entry values, typedefs, #if lines."""

from __future__ import annotations

from textwrap import dedent

from accls.frontend import parse_source
from accls.frontend.skipped_lines import blank_lines, untaken_includes
from accls.validation.race_check import _moved_lines


def _subscripts(text: str) -> list[str]:
    source = parse_source(dedent(text))
    return [s.text for nest in source.nests for r in nest.refs for s in r.subscripts]


def test_the_variable_the_condition_tests_is_the_loop_variable() -> None:
    source = parse_source(
        "void f(int n, int b, double *x) { int jg, j;\n"
        "  for (jg = b, j = 0; jg < n; j++, jg++) x[j] = 0; }\n"
    )
    loop = source.nests[0]
    assert loop.var == "jg"
    assert not loop.unbounded
    assert [s.text for r in loop.refs for s in r.subscripts] == ["0 + jg - b"]


def test_a_tested_variable_without_a_polynomial_start_does_not_lead() -> None:
    source = parse_source(
        "void f(int n, int *first, double *x) { int j, k;\n"
        "  for (k = 0, j = first[0]; j < n; k++, j++) x[k] = 0; }\n"
    )
    loop = source.nests[0]
    assert loop.var == "k"
    assert loop.unbounded == "j < n"


def test_a_header_advance_starts_at_the_value_set_before_the_loop() -> None:
    subs = _subscripts(
        """
        void f(long n, int r0, long *x) {
          long row, elm; int r;
          for (row = 0; row < n; row++) {
            elm = row * 8;
            for (r = 0; r < 4; r++, elm += 2) x[elm + 1] = r;
          }
        }
        """
    )
    assert subs == ["((row * 8) + 2*r) + 1"]


def test_a_header_advance_written_between_keeps_its_name() -> None:
    subs = _subscripts(
        """
        void f(long n, long *x, long *y) {
          long row, elm; int r;
          for (row = 0; row < n; row++) {
            elm = row * 8;
            elm = y[row];
            for (r = 0; r < 4; r++, elm += 2) x[elm] = r;
          }
        }
        """
    )
    assert subs[-1] == "elm"


def test_a_typedef_of_an_integer_is_substituted_like_the_integer() -> None:
    subs = _subscripts(
        """
        typedef long s64;
        void f(s64 n, s64 m, double *x) {
          s64 row, base;
          for (row = 0; row < n; row++) { base = row * m; x[base] = 0; }
        }
        """
    )
    assert subs == ["row * m"]


def test_a_typedef_of_a_pointer_is_not_an_integer() -> None:
    subs = _subscripts(
        """
        typedef long *lp;
        void f(long n, double *x, lp q) {
          long row; lp base;
          for (row = 0; row < n; row++) { base = q + row; x[row] = 0; }
        }
        """
    )
    assert subs == ["row"]


def test_an_element_address_does_not_make_its_index_escape() -> None:
    source = parse_source(
        "void g(long *p);\n"
        "void f(long n, long m, long *x) { long row, e;\n"
        "  for (row = 0; row < n; row++) { e = row * m; g(&x[row * m]); x[e] = 0; } }\n"
    )
    refs = [r for r in source.nests[0].refs if r.name in ("row", "m")]
    assert refs
    assert not any(r.escapes for r in refs)
    assert [
        s.text
        for r in source.nests[0].refs
        if r.name == "x" and r.is_write
        for s in r.subscripts
    ][-1] == "row * m"


def test_blank_lines_keeps_offsets_and_drops_skipped_branches() -> None:
    text = (
        b"#if A\nfor (i = 1; i < n; i++) {\n#else\nfor (i = 0; i < n; i++) {\n#endif\n"
    )
    out = blank_lines(text, frozenset({2}))
    assert len(out) == len(text)
    assert out.split(b"\n")[3] == b"for (i = 0; i < n; i++) {"
    assert b"#" not in out
    assert b"i = 1" not in out


def test_an_include_of_a_branch_not_taken_is_skipped() -> None:
    marked = [
        "#if LOOPGEN",  # 1
        '#include "body.incl"',  # 2
        "#else",  # 3
        "@",  # 4: compiled
        "#endif",  # 5
        "#if OTHER",  # 6
        '#include "other.incl"',  # 7: no line of this group is compiled
        "#endif",  # 8
    ]
    assert untaken_includes(marked, {4}) == {2}
    assert untaken_includes(marked, set()) == frozenset()


def test_an_include_inside_a_skipped_outer_branch_is_skipped() -> None:
    marked = ["#if A", "#if B", '#include "x"', "#endif", "#else", "@", "#endif"]
    assert untaken_includes(marked, {6}) == {3}


def test_skipped_lines_move_down_past_inserted_pragmas() -> None:
    text = "a\nb\nc\nd\n"
    # One line inserted before line 2 ("b"), two before line 4 ("d").
    edits = [(2, "#pragma x\n"), (6, "#pragma y\n#pragma z\n")]
    assert _moved_lines(text, edits, frozenset({1, 2, 3, 4})) == {1, 3, 4, 7}
