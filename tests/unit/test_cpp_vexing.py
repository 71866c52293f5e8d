"""C++'s most vexing parse: `T x(a, b);` with variables declares a variable."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import SourceFile, parse_source

_BODY = """\
#include <vector>
typedef int Count;
struct Pair {
  Pair(int a, int b) : lo(a), hi(b) {}
  int lo, hi;
};
void k(const double *__restrict y, double *__restrict z, int n, int a, int b) {
  DECLS
  for (int i = 0; i < n; i++) {
    x[i] = 2.0 * y[i];
  }
  for (int i = 0; i < n; i++) {
    z[i] = x[i] + 1.0;
  }
}
"""


def _parse(decls: str) -> SourceFile:
    return parse_source(dedent(_BODY).replace("DECLS", decls), "k.cpp")


def test_a_vector_built_from_a_variable_owns_its_buffer() -> None:
    facts = analyze(_parse("std::vector<double> x(n);")).facts
    assert [f.parallel for f in facts] == [True, True], [
        o.message for f in facts for o in f.obstacles
    ]
    fn = _parse("std::vector<double> x(n);").function("k")
    assert fn is not None
    x = fn.lookup("x")
    assert x is not None
    assert x.fresh


def test_an_object_built_from_variables_reads_them() -> None:
    fn = _parse("std::vector<double> x(n); Pair p(a, b);").function("k")
    assert fn is not None
    assert fn.lookup("p") is not None
    reads = [r.name for r in fn.refs if not r.is_write]
    assert {"a", "b", "n"} <= set(reads)


def test_declarations_of_functions_stay_functions() -> None:
    fn = _parse("std::vector<double> x(n); Pair p(); Pair q(Count);").function("k")
    assert fn is not None
    assert fn.lookup("p") is None
    assert fn.lookup("q") is None
