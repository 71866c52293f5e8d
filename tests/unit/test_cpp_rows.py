"""Containers of containers: rows of distinct outer elements are distinct objects."""

from __future__ import annotations

from textwrap import dedent

from support.verdicts import verdicts

HEAD = """\
    #include <vector>
    using Mat = std::vector<std::vector<double>>;
    """


def _verdicts(text: str) -> dict[int, tuple[bool, str]]:
    return verdicts(dedent(HEAD) + dedent(text))


def test_rows_in_index_form_are_apart() -> None:
    found = _verdicts(
        """\
        void f(Mat &m, int n) {
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) m[i][j] = 2 * m[i][j];
        }
        """
    )
    assert found[4][0], found[4][1]


def test_a_local_vector_of_vectors_keeps_its_rows_apart() -> None:
    found = _verdicts(
        """\
        double f(int n) {
          Mat m(n, std::vector<double>(n));
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) m[i][j] = i + j;
          return m[1][1];
        }
        """
    )
    assert found[5][0], found[5][1]


def test_a_range_for_row_is_the_outer_element() -> None:
    found = _verdicts(
        """\
        void f(Mat &m) {
          for (auto &row : m)
            for (auto &x : row) x = x + 1.0;
        }
        """
    )
    assert found[4][0], found[4][1]


def test_a_row_read_across_iterations_is_a_dependence() -> None:
    found = _verdicts(
        """\
        void f(Mat &m, int n) {
          for (int i = 1; i < n; i++)
            for (int j = 0; j < n; j++) m[i][j] = m[i - 1][j];
        }
        void g(Mat &m) {
          for (auto &row : m) row[0] = 2 * m[0][0];
        }
        """
    )
    assert not found[4][0]
    assert not found[8][0]
    assert "m[0][0]" in found[8][1]


def test_two_tables_may_be_the_same_object() -> None:
    found = _verdicts(
        """\
        void f(Mat &a, const Mat &b, int n) {
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) a[i][j] = b[i][j];
        }
        """
    )
    assert not found[4][0]


def test_rows_that_are_pointers_or_views_are_not_apart() -> None:
    found = _verdicts(
        """\
        #include <span>
        void f(std::vector<double *> &m, int n) {
          for (int i = 0; i < n; i++) m[i][0] = 1.0;
        }
        void g(std::vector<std::span<double>> &m) {
          for (auto &row : m) row[0] = 1.0;
        }
        """
    )
    assert not found[5][0]
    assert not found[8][0]
