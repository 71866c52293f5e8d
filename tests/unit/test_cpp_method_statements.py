"""A method called as a statement, `s.apply(b, a, i);`, is a call, not a declaration.

The scan for overloads a prototype declares took `s.apply(b, a, i);` for a
declaration of `apply` with other parameter types, and refused every loop
calling a method as a statement ("may run another overload"). The call is now
read through the method's summary: the element it updates is tested like the
loop's own access, and one it shares is still refused.
"""

from __future__ import annotations

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect

_PROGRAM = """
class Scaler {
public:
  explicit Scaler(double f) : f_(f) {}
  void apply(double *out, const double *in, int i) const { out[PLACE] = f_ * in[i]; }
private:
  double f_;
};
int main() {
  const int n = 1000;
  double *a = new double[n], *b = new double[n];
  Scaler s(2.0);
  for (int i = 0; i < n; ++i) a[i] = 1.0;
  for (int i = 0; i < n; ++i) {
    s.apply(b, a, i);
  }
  return (int)b[3];
}
"""
_LOOP = 14


@pytest.mark.parametrize(("place", "parallel"), [("i", True), ("0", False)])
def test_a_method_statement_is_read_through_its_summary(
    place: str, parallel: bool
) -> None:
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(_PROGRAM.replace("PLACE", place), "t.cpp", settings)
    rows = {s.loop.span.start[0] + 1: s.pragma is not None for s in found.suggestions}
    assert rows[_LOOP] is parallel
