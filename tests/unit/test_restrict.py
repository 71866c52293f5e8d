"""The `restrict` quick fix: where it edits, when it applies, and when it must not."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import (
    AnalysisOptions,
    analyze_text,
    overlapping_calls,
    restrict_parameters,
)
from accls.cli import main
from accls.frontend import restrict_insertions
from accls.suggest import Dialect, SuggestOptions, Target
from accls.suggest.restrict import PROMISE, parallel_with_restrict

OMP = SuggestOptions(Dialect.OPENMP, Target.CPU)
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "c"

AXPY = dedent(
    """\
    void axpy(int n, double *y, const double *x);

    void axpy(int n, double *y, const double *x)
    {
        for (int i = 0; i < n; i++)
            y[i] = y[i] + 2.0 * x[i];
    }
    """
)


def _apply(text: str, names: tuple[str, ...], function: str = "f") -> str | None:
    found = restrict_insertions(text, function, names)
    if found is None:
        return None
    out, last = "", 0
    for at, new in found:
        out += text[last:at] + new
        last = at
    return out + text[last:]


def test_the_definition_and_its_prototypes_get_restrict() -> None:
    text = (
        "void f(double *, const double * b, int n);\n"
        "void f(double *a, const double *b, int n) {}\n"
    )
    assert _apply(text, ("a", "b")) == (
        "void f(double *restrict, const double * restrict b, int n);\n"
        "void f(double *restrict a, const double *restrict b, int n) {}\n"
    )


def test_a_pointer_returning_function_and_a_const_pointer() -> None:
    text = "double *f(double *const a, double *b) { return b; }\n"
    assert _apply(text, ("a", "b")) == (
        "double *f(double *const restrict a, double *restrict b) { return b; }\n"
    )


def test_declarators_that_are_not_plain_pointers_are_never_edited() -> None:
    assert _apply("void f(double a[], double *b) {}\n", ("a",)) is None
    assert _apply("void f(double **a, double *b) {}\n", ("a",)) is None
    assert _apply("void f(double *restrict a, double *b) {}\n", ("a",)) is None
    assert _apply("void f(double (*a)[4], double *b) {}\n", ("a",)) is None


def test_k_and_r_definitions_are_never_edited() -> None:
    assert _apply("void f(a, b) double *a; double *b; {}\n", ("a",)) is None


def test_a_function_defined_under_two_ifs_is_never_edited() -> None:
    text = dedent(
        """\
        #ifdef FAST
        void f(double *a, double *b) {}
        #else
        void f(double *a, double *b) { a[0] = b[0]; }
        #endif
        """
    )
    assert _apply(text, ("a",)) is None


def test_a_prototype_that_disagrees_is_never_edited() -> None:
    text = "void f();\nvoid f(double *a, double *b) {}\n"
    assert _apply(text, ("a",)) is None


def test_aliasing_alone_names_the_pointer_parameters() -> None:
    analysis = analyze_text(AXPY)
    assert restrict_parameters(analysis.facts[0], analysis.source) == ("y", "x")


def test_another_obstacle_means_no_parameters() -> None:
    src = dedent(
        """\
        void scan(int n, double *out, const double *in)
        {
            for (int i = 1; i < n; i++)
                out[i] = out[i - 1] + in[i];
        }
        """
    )
    analysis = analyze_text(src)
    facts = analysis.facts[0]
    assert {o.code.value for o in facts.obstacles} >= {"alias", "dependence"}
    assert restrict_parameters(facts, analysis.source) is None
    assert parallel_with_restrict(src, analysis, facts, OMP, AnalysisOptions()) is None


def test_a_member_pointer_is_not_a_parameter_to_qualify() -> None:
    src = dedent(
        """\
        struct v { double *d; };
        void f(int n, struct v *s, const double *x)
        {
            for (int i = 0; i < n; i++)
                s->d[i] = x[i];
        }
        """
    )
    analysis = analyze_text(src)
    assert restrict_parameters(analysis.facts[0], analysis.source) is None


def test_restrict_makes_the_loop_parallel_and_says_what_it_promises() -> None:
    analysis = analyze_text(AXPY)
    found = parallel_with_restrict(
        AXPY, analysis, analysis.facts[0], OMP, AnalysisOptions()
    )
    assert found is not None
    rewrite, (top, *_) = found
    assert rewrite.names == ("y", "x")
    assert rewrite.text.count("double *restrict y, const double *restrict x") == 2
    assert top.pragma is not None
    assert top.pragma.render() == "#pragma omp parallel for"
    assert PROMISE in rewrite.summary
    assert "never refer to overlapping memory" in PROMISE


def test_nothing_to_promise_under_assume_no_alias() -> None:
    analysis = analyze_text(AXPY, options=AnalysisOptions(assume_no_alias=True))
    assert analysis.facts[0].parallel
    assert (
        parallel_with_restrict(
            AXPY, analysis, analysis.facts[0], OMP, AnalysisOptions(True)
        )
        is None
    )


def test_a_caller_passing_one_buffer_twice_blocks_the_promise() -> None:
    src = AXPY + dedent(
        """\
        double g[100];
        void run(void) { axpy(99, g + 1, g); }
        """
    )
    analysis = analyze_text(src)
    assert overlapping_calls(analysis.source, "axpy", ("y", "x")) == (
        "`axpy(99, g + 1, g)` at line 9",
    )
    assert (
        parallel_with_restrict(src, analysis, analysis.facts[0], OMP, AnalysisOptions())
        is None
    )


def test_distinct_callers_do_not_block_it() -> None:
    src = AXPY + "double g[100], h[100];\nvoid run(void) { axpy(100, g, h); }\n"
    analysis = analyze_text(src)
    assert overlapping_calls(analysis.source, "axpy", ("y", "x")) == ()


def test_annotate_add_restrict_promises_and_parallelizes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    src = tmp_path / "axpy.c"
    src.write_text(AXPY, encoding="utf-8")
    out = tmp_path / "out.c"
    argv = ["annotate", "--model", "openmp", "--target", "cpu", "--no-validate"]
    assert main([*argv, "--add-restrict", str(src), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.count("double *restrict y, const double *restrict x") == 2
    assert "#pragma omp parallel for\n" in text
    assert "promised `y`, `x` of `axpy()`" in capsys.readouterr().err
    assert main([*argv, str(src), "-o", str(out)]) == 0  # without it: no promise
    assert "restrict" not in out.read_text(encoding="utf-8")


def test_annotate_add_restrict_leaves_a_caller_passing_one_buffer_twice(
    tmp_path: Path,
) -> None:
    src = tmp_path / "saxpy.c"
    original = (FIXTURES / "saxpy_alias.c").read_text(encoding="utf-8")
    src.write_text(original, encoding="utf-8")  # main() calls saxpy(.., ys, ys)
    out = tmp_path / "out.c"
    argv = ["annotate", "--model", "openmp", "--target", "cpu", "--no-validate"]
    assert main([*argv, "--add-restrict", str(src), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.count("restrict") == original.count("restrict")
    assert "const float *x, float *y" in text


def test_annotate_add_restrict_leaves_a_caller_in_another_file(
    tmp_path: Path,
) -> None:
    """`axpy(n, g + 1, g)` in another file of the project: no promise to make."""
    root = tmp_path / "proj"
    root.mkdir()
    src = root / "axpy.c"
    src.write_text(AXPY, encoding="utf-8")
    caller = "void axpy(int n, double *y, const double *x);\ndouble g[100];\n"
    (root / "main.c").write_text(caller + "void run(void) { axpy(99, g + 1, g); }\n")
    out = tmp_path / "out.c"
    argv = ["annotate", "--model", "openmp", "--target", "cpu", "--no-validate"]
    argv += ["--project", str(root), "--index-cache", str(tmp_path / "cache")]
    assert main([*argv, "--add-restrict", str(src), "-o", str(out)]) == 0
    assert "restrict" not in out.read_text(encoding="utf-8")
