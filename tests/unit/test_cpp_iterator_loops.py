"""C++ iterator loops over a random-access container: loops over its elements."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect


def _verdicts(body: str) -> list[tuple[bool, str]]:
    """Each loop's (parallel, obstacles' messages joined), in order."""
    source = "#include <vector>\n" + dedent(body)
    facts = analyze(parse_source(source, "k.cpp")).facts
    return [
        (f.parallel, " | ".join(o.message for o in f.obstacles))
        for f in sorted(facts, key=lambda f: f.loop.line)
    ]


def test_an_iterator_loop_over_a_vector_is_a_loop_over_its_elements() -> None:
    verdicts = _verdicts(
        """\
        double f(int n) {
          std::vector<double> v(n, 1.0), w(n, 2.0);
          for (auto it = v.begin(); it != v.end(); ++it) {
            *it *= 2.0;
          }
          for (std::vector<double>::iterator it = w.begin(); it < w.end(); it++) {
            *it = *it + w[0];
          }
          return v[1] + w[1];
        }
        """
    )
    assert [ok for ok, _ in verdicts] == [True, False], verdicts


def test_an_iterator_loop_sums_its_elements_as_a_reduction() -> None:
    [(ok, why)] = _verdicts(
        """\
        double f(const std::vector<double> &v) {
          double s = 0.0;
          for (auto it = v.cbegin(); it != v.cend(); ++it) {
            s += *it;
          }
          return s;
        }
        """
    )
    assert ok, why


def test_an_iterator_used_otherwise_than_dereferenced_is_refused() -> None:
    verdicts = _verdicts(
        """\
        void f(std::vector<double> &v) {
          for (auto it = v.begin(); it != v.end() - 1; ++it) {
            *it = 1.0;
          }
          for (auto it = v.begin(); it != v.end(); ++it) {
            *it = *(it + 1);
          }
          for (auto it = v.begin(); it != v.end(); ++it) {
            it[0] = 2.0;
          }
        }
        """
    )
    assert [ok for ok, _ in verdicts] == [False] * 3, verdicts


def test_a_carried_scalar_in_an_iterator_loop_is_still_carried() -> None:
    [(ok, _)] = _verdicts(
        """\
        void f(std::vector<double> &v) {
          double prev = 0.0;
          for (auto it = v.begin(); it != v.end(); ++it) {
            double c = *it;
            *it = c - prev;
            prev = c;
          }
        }
        """
    )
    assert not ok


def test_openacc_says_it_does_not_take_an_iterator_loop() -> None:
    text = dedent(
        """\
        #include <vector>
        void f(std::vector<double> &v) {
          for (auto it = v.begin(); it != v.end(); ++it) {
            *it *= 2.0;
          }
        }
        """
    )
    settings = Settings(dialect=Dialect.OPENACC, validate=False)
    [found] = suggest_text(text, "k.cpp", settings).suggestions
    assert found.pragma is None
    assert any("an iterator loop" in r for r in found.reasons), found.reasons
