"""Pointers carved from one block: apart only when their accessed ranges are.

`B = A + n*n` and `B[i*n + j]` give polynomial ends; the products are proved
with each as one unknown (a square never negative), and a counter's symbolic
stride only counts when its sign is proved. Every overlapping or unproved
shape stays an alias obstacle.
"""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze_text
from accls.analysis.model import ObstacleCode
from accls.analysis.product_inequalities import proves_nonnegative_products
from accls.frontend import Poly


def _every(src: str, line: int) -> list[tuple[ObstacleCode, str]]:
    """The obstacles of the loop whose `for` is on `line` (1-based)."""
    facts = analyze_text(dedent(src)).facts
    found = next(f for f in facts if f.loop.span.line == line)
    return [(o.code, o.message) for o in found.obstacles]


def _obstacles(src: str, line: int) -> list[str]:
    """The alias obstacles of that loop."""
    return [text for code, text in _every(src, line) if code == ObstacleCode.ALIAS]


def _n(power: int = 1) -> Poly:
    out = Poly.const(1)
    for _ in range(power):
        out = out * Poly.sym("n")
    return out


def test_a_square_is_never_negative() -> None:
    assert proves_nonnegative_products(_n(2), [])


def test_a_product_needs_its_odd_factors_signed() -> None:
    assert not proves_nonnegative_products(_n(3), [])
    assert proves_nonnegative_products(_n(3), [_n()])  # n >= 0


def test_products_are_not_proved_from_nothing() -> None:
    assert not proves_nonnegative_products(_n(2) - Poly.const(1), [])
    assert proves_nonnegative_products(_n(2) - Poly.const(1), [_n(2) - Poly.const(1)])


_SQUARES = """
#include <stdlib.h>
void f(int n) {
  double *A = malloc(3 * (size_t)n * n * sizeof(double));
  double *B = A + n * n;
  double *C = B + OFFSET;
  for (int i = 0; i < n * n; i++)
    C[i] = A[i] + B[i];
  free(A);
}
"""


def test_blocks_of_n_squared_are_apart() -> None:
    assert _obstacles(_SQUARES.replace("OFFSET", "n * n"), 7) == []


def test_blocks_one_short_of_n_squared_overlap() -> None:
    assert _obstacles(_SQUARES.replace("OFFSET", "n * n - 1"), 7)


def test_a_block_of_n_times_m_is_not_proved_against_n_squared() -> None:
    text = _SQUARES.replace("f(int n)", "f(int n, int m)")
    assert _obstacles(text.replace("OFFSET", "n * m"), 7)


_ROWS = """
#include <stdlib.h>
void f(int n, int m) {
  double *A = malloc(2 * (size_t)n * n * sizeof(double));
  double *B = A + n * n;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[WRITE] = A[j * n + i];
  free(A);
}
"""


def test_rows_of_a_linearised_matrix_are_apart() -> None:
    assert _obstacles(_ROWS.replace("WRITE", "i * n + j"), 6) == []


def test_a_stride_of_unknown_sign_is_refused() -> None:
    assert _obstacles(_ROWS.replace("WRITE", "i * m + j"), 6)


def test_a_negative_stride_reaching_back_is_refused() -> None:
    # B[-(i*n) - j - 1] runs from B[-n*n] to B[-1]: all of A.
    assert _obstacles(_ROWS.replace("WRITE", "-(i * n) - j - 1"), 6)


def test_a_counter_times_a_counter_is_refused() -> None:
    assert _obstacles(_ROWS.replace("WRITE", "i * j"), 6)


_HALVES = """
#include <stdlib.h>
void f(int n) {
  double *buf = malloc(2 * (size_t)n * sizeof(double));
  double *a = buf;
  double *b = buf + SPLIT;
  BEFORE
  for (int i = 0; i < n; i++)
    b[i] = a[i] + 1.0;
  free(buf);
}
"""


def _halves(split: str, before: str = "") -> list[str]:
    return _obstacles(_HALVES.replace("SPLIT", split).replace("BEFORE", before), 8)


def test_halves_of_n_are_apart() -> None:
    assert _halves("n") == []


def test_a_split_at_half_the_loop_overlaps() -> None:
    assert _halves("n / 2")


def test_an_offset_of_unknown_sign_is_refused() -> None:
    text = _HALVES.replace("f(int n)", "f(int n, int k)").replace("SPLIT", "k")
    assert _obstacles(text.replace("BEFORE", ""), 8)


def test_a_pointer_set_again_under_a_condition_is_refused() -> None:
    assert _halves("n", "if (n > 4) b = buf + 1;")


def test_a_pointer_whose_address_escapes_is_refused() -> None:
    assert _halves("n", "void move(double **); move(&b);")


def test_an_offset_changed_after_the_split_is_refused() -> None:
    text = _HALVES.replace("SPLIT", "k").replace("double *a = buf;", "int k = n;")
    assert _obstacles(text.replace("BEFORE", "double *a = buf; k = 1;"), 8)


def test_a_pointer_set_in_the_loop_is_refused() -> None:
    text = _HALVES.replace("SPLIT", "n").replace("BEFORE", "")
    text = text.replace("b[i] = a[i] + 1.0;", "{ b = buf + i; b[i] = a[i] + 1.0; }")
    assert _every(text, 8)


def test_a_falling_loop_is_not_ranged() -> None:
    text = _HALVES.replace("SPLIT", "n").replace("BEFORE", "")
    text = text.replace("int i = 0; i < n; i++", "int i = n - 1; i >= -n; i--")
    assert _obstacles(text, 8)


def test_a_falling_inner_loop_gives_no_false_fact() -> None:
    # `j` from n down: its gap read as a rising loop's said `-n >= 0`, which
    # with `n - 1 >= 0` from `i` proved anything; `b[i]` is read as `a[i + 1]`.
    text = _HALVES.replace("SPLIT", "1").replace("BEFORE", "")
    text = text.replace(
        "b[i] = a[i] + 1.0;", "for (int j = n; j > 0; j--) b[i] = a[i] + j;"
    )
    assert _obstacles(text, 8)


def test_a_counter_read_after_its_loop_is_not_ranged() -> None:
    # After `for (j = 0; j < n; j++)`, `b[j]` is `b[n]`, which is `a[0]`.
    text = """
    #include <stdlib.h>
    void f(int n, int m) {
      double *buf = malloc((3 * (size_t)n + m) * sizeof(double));
      double *b = buf + n;
      double *a = buf + 2 * n;
      int j;
      for (int i = 0; i < m; i++) {
        for (j = 0; j < n; j++)
          a[m + j] = 0.0;
        b[j] = a[i] + 1.0;
      }
      free(buf);
    }
    """
    assert _obstacles(text, 8)
