"""C++ methods defined outside their class: a call's argument count picks one.

`double weight(int) const;` and `double weight(int, double);` declared in a
class the file holds, defined after it: the class is their only other
declaration, so a call passing one argument runs the first (its defaults are
the declaration's). The overload that writes the object stays refused.
"""

from __future__ import annotations

from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect

_SOLVER = """
#include <vector>
class Solver {
public:
  explicit Solver(int n);
  double weight(int i) const;
  double weight(int i, double s);
  double scale(double v, int k = 1) const;
  double scale(double v, int k, int m) const;
  void run();
private:
  int n_;
  double last_;
  std::vector<double> a_, b_;
};
Solver::Solver(int n) : n_(n), last_(0.0), a_(n), b_(n) {}
double Solver::weight(int i) const { return 0.5 * i; }
double Solver::weight(int i, double s) { last_ = s; return s * i; }
double Solver::scale(double v, int k) const { return k * v; }
double Solver::scale(double v, int k, int m) const { return k * m * v; }
void Solver::run() {
  for (int i = 0; i < n_; ++i) {
    a_[i] = CALL;
  }
}
int main() { Solver s(10); s.run(); return 0; }
"""
_LOOP = 22


def _parallel(call: str) -> bool:
    """Whether the loop assigning `call` to `a_[i]` gets a pragma."""
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(_SOLVER.replace("CALL", call), "t.cpp", settings)
    rows = {s.loop.span.start[0] + 1: s.pragma is not None for s in found.suggestions}
    return rows[_LOOP]


def test_the_count_picks_the_overload_that_writes_nothing() -> None:
    assert _parallel("weight(i) * b_[i]")


def test_the_declaration_default_picks_the_overload_it_completes() -> None:
    assert _parallel("scale(b_[i])")


def test_the_overload_that_writes_the_object_is_refused() -> None:
    assert not _parallel("weight(i, b_[i])")
