"""A class's writable static data member has its declared type, and stays shared."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <vector>
struct Config {
  static double s_scale;
  static long s_touched;
};
double Config::s_scale = 0.75;
long Config::s_touched = 0;
double run() {
  std::vector<double> w(1000, 1.0), u(1000, 0.5);
  for (std::size_t i = 0; i < 1000; ++i) {
    BODY
  }
  return w[0];
}
"""


def _parallel(body: str) -> bool:
    (fact,) = analyze_text(_TEXT.replace("BODY", body), path="t.cpp").facts
    return fact.parallel


def test_reading_a_static_member_in_an_expression_is_no_call() -> None:
    assert _parallel("w[i] = w[i] + Config::s_scale * u[i];")


@pytest.mark.parametrize(
    "body",
    [
        "if (u[i] > 0.5) { ++Config::s_touched; }",
        "Config::s_scale = u[i];",
        "Config::s_scale += u[i];",
        "w[i] = Config::s_scale; Config::s_scale = u[i] * 2.0;",
    ],
)
def test_a_static_member_written_in_the_loop_is_refused(body: str) -> None:
    assert not _parallel(body)
