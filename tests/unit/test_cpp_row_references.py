"""`std::vector<double> &row = rows[r]`: each use of the reference is that row."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze
from accls.frontend import parse_source
from support.verdicts import verdicts

HEAD = """\
    #include <cstddef>
    #include <vector>
    using Mat = std::vector<std::vector<double>>;
    """


def _verdicts(text: str) -> dict[int, tuple[bool, str]]:
    return verdicts(dedent(HEAD) + dedent(text))


def test_a_reference_to_the_iterations_row_is_that_row() -> None:
    found = _verdicts(
        """\
        double f(std::size_t n) {
          Mat rows(n, std::vector<double>(30));
          for (std::size_t r = 0; r < rows.size(); ++r) {
            std::vector<double> &row = rows[r];
            for (std::size_t j = 0; j < row.size(); ++j) row[j] = r * 2.0 + j;
          }
          return rows[1][1];
        }
        """
    )
    assert found[6][0], found[6][1]


def test_a_reference_to_the_next_row_is_a_dependence() -> None:
    found = _verdicts(
        """\
        double f(std::size_t n) {
          Mat rows(n, std::vector<double>(30));
          for (std::size_t r = 0; r + 1 < n; ++r) {
            std::vector<double> &next = rows[r + 1];
            for (std::size_t j = 0; j < 30; ++j) next[j] = rows[r][j] + 1.0;
          }
          return rows[1][1];
        }
        """
    )
    assert not found[6][0]


def test_a_reference_through_an_index_list_is_a_scatter() -> None:
    source = parse_source(
        dedent(HEAD)
        + dedent(
            """\
        double f(std::size_t n, const std::vector<std::size_t> &idx) {
          Mat rows(n, std::vector<double>(30));
          for (std::size_t r = 0; r < n; ++r) {
            auto &row = rows[idx[r]];
            row[0] += 1.0;
          }
          return rows[1][0];
        }
        """
        ),
        "k.cpp",
    )
    (facts,) = (f for f in analyze(source, AnalysisOptions()).facts if f.loop.line == 6)
    # Two iterations may update one element: in parallel only with an atomic.
    assert not facts.parallel or [a.name for a in facts.atomics] == ["rows"]


def test_two_references_to_neighbour_rows_are_a_dependence() -> None:
    found = _verdicts(
        """\
        double f(std::size_t n) {
          Mat rows(n, std::vector<double>(30));
          for (std::size_t r = 0; r < n; ++r) {
            std::vector<double> &mine = rows[r];
            std::vector<double> &other = rows[(r + 1) % n];
            mine[0] = other[0] + 1.0;
          }
          return rows[1][0];
        }
        """
    )
    assert not found[6][0]


def test_an_index_changed_after_the_binding_keeps_the_reference_a_pointer() -> None:
    # Read as `rows[k]` at each use, `row[1]` would be the next row's element;
    # the reference still names row r, so the walk must not rewrite it.
    found = _verdicts(
        """\
        double f(std::size_t n) {
          Mat rows(n, std::vector<double>(30));
          for (std::size_t r = 0; r < n - 1; ++r) {
            std::size_t k = r;
            std::vector<double> &row = rows[k];
            k = r + 1;
            row[1] = rows[k][1] + 1.0;
          }
          return rows[1][0];
        }
        """
    )
    assert not found[6][0]


def test_assigning_another_row_through_the_reference_reads_it() -> None:
    # `row = rows[r + 1]` copies the next row's contents into row r.
    found = _verdicts(
        """\
        double f(std::size_t n) {
          Mat rows(n, std::vector<double>(30));
          for (std::size_t r = 0; r + 1 < n; ++r) {
            std::vector<double> &row = rows[r];
            row = rows[r + 1];
          }
          return rows[1][0];
        }
        """
    )
    assert not found[6][0]


def test_a_row_of_a_table_of_pointers_is_not_owned() -> None:
    found = _verdicts(
        """\
        double f(std::size_t n, std::vector<double> *buf) {
          std::vector<std::vector<double> *> rows(n, buf);
          for (std::size_t r = 0; r < n; ++r) {
            std::vector<double> &row = *rows[r];
            row[0] = r;
          }
          return (*rows[1])[0];
        }
        """
    )
    assert not found[6][0]


def test_a_reference_that_hides_a_shared_row_stays_a_pointer() -> None:
    # After the inner block, `row` is `m[0]` again, shared by every iteration.
    found = _verdicts(
        """\
        double f(std::size_t n) {
          Mat m(n, std::vector<double>(30));
          std::vector<double> &row = m[0];
          for (std::size_t r = 0; r < n; ++r) {
            {
              std::vector<double> &row = m[r];
              row[1] = r;
            }
            row[0] += 1.0;
          }
          return m[1][0];
        }
        """
    )
    assert not found[7][0], found[7][1]


def test_a_row_passed_to_a_call_is_its_place() -> None:
    found = _verdicts(
        """\
        #include <algorithm>
        double f(std::size_t n) {
          Mat m(n, std::vector<double>(30));
          for (std::size_t r = 0; r < n; ++r) {
            std::vector<double> &row = m[r];
            std::sort(row.begin(), row.end());
          }
          for (auto &row : m) std::fill(row.begin(), row.end(), 1.0);
          for (std::size_t r = 0; r + 1 < n; ++r) {
            std::vector<double> &next = m[r + 1];
            std::fill(next.begin(), next.end(), m[r][0]);
          }
          return m[1][0];
        }
        """
    )
    assert found[7][0], found[7][1]
    assert found[11][0], found[11][1]
    assert not found[12][0]


def test_a_sort_with_a_comparison_of_the_callers_is_a_call() -> None:
    found = _verdicts(
        """\
        #include <algorithm>
        double f(std::size_t n) {
          Mat m(n, std::vector<double>(30));
          for (std::size_t r = 0; r < n; ++r)
            std::sort(m[r].begin(), m[r].end(), [](double a, double b) {
              return a > b;
            });
          return m[1][0];
        }
        """
    )
    assert not found[7][0]


def test_a_shared_scratch_row_sorted_per_iteration_is_refused() -> None:
    found = _verdicts(
        """\
        #include <algorithm>
        double f(std::size_t n) {
          Mat m(n, std::vector<double>(30));
          std::vector<double> scratch(30), med(n);
          for (std::size_t r = 0; r < n; ++r) {
            scratch = m[r];
            std::sort(scratch.begin(), scratch.end());
            med[r] = scratch[15];
          }
          return med[1];
        }
        """
    )
    assert not found[8][0]
