"""Regressions found by the quality benchmark on real code."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze_text
from accls.frontend import parse_source
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)


def pragmas(text: str, opts: SuggestOptions = ACC) -> list[str | None]:
    analysis = analyze_text(
        dedent(text), options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    return [
        s.pragma.render() if s.pragma else None for s in suggest_file(analysis, opts)
    ]


def test_a_section_never_names_the_loop_variable() -> None:
    found = pragmas(
        """
        void f(int n, int *restrict t, const int *restrict a) {
          for (int x = 0; x < n/10 + 1; ++x)
            t[x] = a[x];
        }
        """
    )
    assert found == [
        "#pragma acc parallel loop copyin(a[0:(n/10 + 1)]) copyout(t[0:(n/10 + 1)])"
    ]


def test_a_bound_the_loop_writes_is_not_an_opaque_symbol() -> None:
    source = parse_source(
        "void f(int n, int *a) { for (int i = 0; i < n/2; i++) { a[i] = 0; n--; } }"
    )
    assert source.nests[0].upper is None


def test_a_pragma_under_ifdef_above_a_loop_counts_as_written() -> None:
    source = parse_source(
        dedent(
            """
            void f(int n, double *restrict a) {
            #ifdef OPEN
            #pragma omp parallel for
            #endif
              for (int i = 0; i < n; i++) a[i] = 0;
            }
            """
        )
    )
    assert [p.name for p in source.nests[0].pragmas] == ["parallel for"]


def test_restrict_through_a_macro_still_parses() -> None:
    source = parse_source(
        dedent(
            """
            #define RESTRICT __restrict__
            void f(int n, double * RESTRICT a, double * RESTRICT b) {
              for (int i = 0; i < n; i++) a[i] = b[i];
            }
            """
        )
    )
    assert not source.errors
    params = source.functions[0].params
    assert [(p.name, p.restrict) for p in params if p.pointers] == [
        ("a", True),
        ("b", True),
    ]


def test_a_file_written_with_kernels_gets_kernels() -> None:
    found = pragmas(
        """
        void f(int n, double *restrict a, const double *restrict b) {
          #pragma acc kernels loop copyout(a[0:n]) copyin(b[0:n])
          for (int i = 0; i < n; i++)
            a[i] = b[i];
          for (int i = 0; i < n; i++)
            a[i] = 2 * b[i];
        }
        """
    )
    assert found[1] == "#pragma acc kernels loop copyin(b[0:n]) copyout(a[0:n])"
