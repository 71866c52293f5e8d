"""Regressions found by differential testing (tests/differential), one per cause.

Each program was generated, shrunk, and printed a different result once
annotated; the shrunk program is also under tests/fixtures/differential.
"""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

OMP = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)


def pragmas(text: str) -> list[str | None]:
    analysis = analyze_text(
        dedent(text), options=AnalysisOptions(dialect=OMP.dialect.sentinel)
    )
    return [
        s.pragma.render() if s.pragma else None for s in suggest_file(analysis, OMP)
    ]


def test_a_callee_with_a_static_local_is_not_pure() -> None:
    found = pragmas(
        """
        double a[32];
        static int tick(void) {
            static int calls = 0;
            return calls++;
        }
        void f(void) {
            for (int i = 0; i < 32; i++) a[i] = (double)tick();
        }
        """
    )
    assert found == [None]


def test_a_static_local_in_the_body_is_shared_not_private() -> None:
    found = pragmas(
        """
        double a[64];
        void f(void) {
            for (int i = 0; i < 64; i++) {
                static int c = 0;
                c++;
                a[i] = c;
            }
            for (int i = 0; i < 64; i++) {
                static double m = 0.0;
                m = a[i] * 2.0;
                a[i] = m;
            }
        }
        """
    )
    assert found == [None, None]


def test_a_static_constant_in_the_body_does_not_block() -> None:
    found = pragmas(
        """
        void f(double *restrict b) {
            for (int i = 0; i < 64; i++) {
                static const double k = 2.0;
                b[i] = b[i] * k;
            }
        }
        """
    )
    assert found == ["#pragma omp parallel for"]
