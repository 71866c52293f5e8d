"""A local `std::vector` built by a constructor owns its buffer."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source


def _verdict(body: str) -> tuple[bool, str]:
    text = "#include <vector>\n#include <utility>\n" + dedent(body)
    facts = analyze(parse_source(text, "k.cpp")).facts
    fact = max(facts, key=lambda f: f.loop.line)
    return fact.parallel, " | ".join(o.message for o in fact.obstacles)


def test_two_constructed_vectors_never_overlap() -> None:
    ok, why = _verdict(
        """\
        void f() {
          std::vector<double> x(300);
          std::vector<double> y(300, 1.0);
          for (int i = 0; i < 299; i++) {
            x[i] = y[i + 1] * 2.0;
          }
        }
        """
    )
    assert ok, why


def test_a_pointer_into_a_vector_may_overlap_it() -> None:
    ok, why = _verdict(
        """\
        void f() {
          std::vector<double> x(300);
          double *p = x.data();
          for (int i = 0; i < 299; i++) {
            x[i] = p[i + 1] * 2.0;
          }
        }
        """
    )
    assert not ok
    assert "`x`" in why


def test_a_vector_built_from_a_moved_one_takes_its_buffer() -> None:
    ok, why = _verdict(
        """\
        void f(std::vector<double> &v) {
          std::vector<double> x(std::move(v));
          for (int i = 0; i < 299; i++) {
            x[i] = v[i + 1] * 2.0;
          }
        }
        """
    )
    assert not ok
    assert "may overlap" in why
