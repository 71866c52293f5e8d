"""C++ element access that throws: `v.at(i)` out of range must not leave a region."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source


def _verdict(code: str) -> tuple[bool, str]:
    [fact] = analyze(parse_source(dedent(code), "t.cpp")).facts
    return fact.parallel, " | ".join(o.message for o in fact.obstacles)


def test_at_may_throw_out_of_range_so_the_loop_stays_serial() -> None:
    # In order the caller catches the throw at i == 100; in parallel the
    # exception leaves the region and the program aborts.
    ok, why = _verdict(
        """\
        #include <vector>
        void f(std::vector<double>& v, int n) {
          for (int i = 0; i < n; i++) v.at(i) = i;
        }
        """
    )
    assert not ok
    assert "std::out_of_range" in why


def test_the_subscript_operator_does_not_throw() -> None:
    ok, why = _verdict(
        """\
        #include <vector>
        void f(std::vector<double>& v, int n) {
          for (int i = 0; i < n; i++) v[i] = i;
        }
        """
    )
    assert ok, why
