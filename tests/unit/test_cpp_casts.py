"""C++ functional casts of literals in subscripts: `a[Index_t(8) * k]` is affine."""

from __future__ import annotations

from accls.analysis import AnalysisOptions
from support.verdicts import verdicts


def _verdicts(text: str) -> dict[int, tuple[bool, str]]:
    return verdicts(text, options=AnalysisOptions(assume_no_alias=True))


def test_an_integer_cast_of_a_literal_is_the_literal() -> None:
    found = _verdicts(
        """\
        typedef int Index_t;
        void f(double *a, int n) {
          for (Index_t k = 0; k < n; ++k) {
            a[Index_t(8) * k] = 1.0;
            a[Index_t(8) * k + 7] = 2.0;
          }
        }
        """
    )
    assert found[3][0], found[3][1]


def test_other_casts_stay_opaque() -> None:
    found = _verdicts(
        """\
        typedef double Real_t;
        typedef signed char Tiny;
        int pick(int k);
        void f(double *a, int n) {
          for (int k = 0; k < n; ++k) a[Tiny(200) * k] = 1.0;
          for (int k = 0; k < n; ++k) a[pick(8) * k] = 1.0;
        }
        """
    )
    assert not found[5][0]
    assert not found[6][0]


def test_an_address_at_a_cast_subscript_is_left_to_the_dependence_test() -> None:
    found = _verdicts(
        """\
        typedef int Index_t;
        void f(Index_t *nodes, double *out, int n) {
          for (Index_t k = 0; k < n; ++k) {
            Index_t *const row = &nodes[Index_t(8) * k];
            row[0] = k;
          }
        }
        """
    )
    assert "a permutation" not in found[3][1]
