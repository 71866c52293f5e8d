"""Repairing a pragma with the analysis facts: reductions, privates, data clauses."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze
from accls.frontend import parse_source
from accls.suggest import (
    Dialect,
    Pragma,
    SuggestOptions,
    Target,
    parse_pragma,
    reference_suggestion,
    repair,
)

SUM = dedent(
    """
    double dot(int n, const double *restrict a, const double *restrict b) {
        double s = 0.0;
        for (int i = 0; i < n; i++)
            s += a[i] * b[i];
        return s;
    }
    """
)

TEMP = dedent(
    """
    void scale(int n, double *restrict a, const double *restrict b) {
        double t;
        for (int i = 0; i < n; i++) {
            t = 2.0 * b[i];
            a[i] = t * t;
        }
    }
    """
)

REGION = dedent(
    """
    void twice(int n, double *restrict a, double *restrict b) {
        #pragma acc data copyin(a[0:n]) copyout(b[0:n])
        {
            for (int i = 0; i < n; i++)
                b[i] = 2.0 * a[i];
        }
    }
    """
)

UPDATE = dedent(
    """
    void bump(int n, double *restrict a, const double *restrict b) {
        for (int i = 0; i < n; i++)
            a[i] = a[i] + b[i];
    }
    """
)

NEST = dedent(
    """
    void add2(int n, int m, double a[n][m], double b[n][m]) {
        int i, j;
        for (i = 0; i < n; i++)
            for (j = 0; j < m; j++)
                a[i][j] = b[i][j] + 1.0;
    }
    """
)


def _fix(src: str, text: str, model: Dialect = Dialect.OPENACC) -> tuple[str, int]:
    target = Target.GPU if model is Dialect.OPENACC else Target.CPU
    opts = SuggestOptions(dialect=model, target=target)
    analysis = analyze(parse_source(src), AnalysisOptions(dialect=model.sentinel))
    loop = analysis.source.nests[0]
    if loop.pragmas or not loop.var:
        loop = next(lp for lp in analysis.source.loops() if lp.var)
    pragma = parse_pragma(text)
    assert pragma is not None
    fixed = repair(pragma, reference_suggestion(analysis, loop, opts))
    return fixed.pragma.render(), len(fixed.changes)


def test_adds_missing_reduction() -> None:
    text, changes = _fix(SUM, "#pragma omp parallel for", Dialect.OPENMP)
    assert text == "#pragma omp parallel for reduction(+:s)"
    assert changes == 1


def test_fixes_wrong_reduction_operator() -> None:
    text, _ = _fix(SUM, "#pragma omp parallel for reduction(*:s)", Dialect.OPENMP)
    assert text == "#pragma omp parallel for reduction(+:s)"


def test_moves_shared_scalar_to_private() -> None:
    text, _ = _fix(TEMP, "#pragma omp parallel for shared(t)", Dialect.OPENMP)
    assert text == "#pragma omp parallel for private(t)"


def test_correct_pragma_needs_no_change() -> None:
    text, changes = _fix(
        SUM, "#pragma omp parallel for reduction(+: s)", Dialect.OPENMP
    )
    assert changes == 0
    assert text == "#pragma omp parallel for reduction(+: s)"


def test_inner_loop_variable_private_without_collapse() -> None:
    text, _ = _fix(NEST, "#pragma omp parallel for", Dialect.OPENMP)
    assert text == "#pragma omp parallel for private(j)"
    text, changes = _fix(NEST, "#pragma omp parallel for collapse(2)", Dialect.OPENMP)
    assert changes == 0


def test_copyin_becomes_present_inside_data_region() -> None:
    text, _ = _fix(REGION, "#pragma acc parallel loop copyin(a[0:n]) copyout(b[0:n])")
    assert text == "#pragma acc parallel loop present(a[0:n], b[0:n])"


def test_written_array_copyin_becomes_copy() -> None:
    text, _ = _fix(UPDATE, "#pragma acc parallel loop copyin(a[0:n], b[0:n])")
    assert "copy(a[0:n])" in text
    assert "copyin(b[0:n])" in text


def test_short_section_is_widened_and_missing_array_added() -> None:
    text, changes = _fix(UPDATE, "#pragma acc parallel loop copy(a[0:n-1])")
    assert "copy(a[0:n])" in text
    assert "copyin(b[0:n])" in text
    assert changes == 2


@pytest.mark.parametrize("model", [Dialect.OPENACC, Dialect.OPENMP])
def test_other_dialect_untouched(model: Dialect) -> None:
    other = (
        "#pragma omp parallel for"
        if model is Dialect.OPENACC
        else ("#pragma acc parallel loop")
    )
    opts = SuggestOptions(dialect=model)
    analysis = analyze(parse_source(SUM))
    pragma = parse_pragma(other)
    assert isinstance(pragma, Pragma)
    fixed = repair(
        pragma, reference_suggestion(analysis, analysis.source.nests[0], opts)
    )
    assert fixed.changes == ()


LAST = dedent(
    """
    double keep(int n, const double *restrict a) {
        double last = -1.0;
        for (int i = 0; i < n; i++)
            last = a[i];
        return last;
    }
    """
)


@pytest.mark.parametrize(
    "text",
    [
        "#pragma omp parallel for",
        "#pragma omp parallel for lastprivate(last)",
        "#pragma omp parallel for private(last)",
        "#pragma omp parallel for firstprivate(last)",
    ],
)
def test_a_lastprivate_of_a_loop_that_may_be_empty_gets_its_firstprivate(
    text: str,
) -> None:
    fixed, _ = _fix(LAST, text, Dialect.OPENMP)
    pragma = parse_pragma(fixed)
    assert pragma is not None
    names = {c.name: c.args for c in pragma.clauses}
    assert names == {"firstprivate": "last", "lastprivate": "last"}


def test_a_candidate_with_both_clauses_needs_no_change() -> None:
    text = "#pragma omp parallel for firstprivate(last) lastprivate(last)"
    fixed, changes = _fix(LAST, text, Dialect.OPENMP)
    assert (fixed, changes) == (text, 0)
