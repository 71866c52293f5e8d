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


def test_a_vector_built_from_a_product_of_variables_owns_its_buffer() -> None:
    source = _parse("std::vector<double> x(a * b);")
    facts = analyze(source).facts
    assert [f.parallel for f in facts] == [True, True], [
        o.message for f in facts for o in f.obstacles
    ]
    fn = source.function("k")
    assert fn is not None
    x = fn.lookup("x")
    assert x is not None
    assert x.fresh
    reads = [r.name for r in fn.refs if not r.is_write]
    assert {"a", "b"} <= set(reads)


def test_a_pointer_parameter_of_a_type_still_declares_a_function() -> None:
    fn = _parse("std::vector<double> x(n); Pair q(Count *c);").function("k")
    assert fn is not None
    assert fn.lookup("q") is None


def test_a_product_built_vector_shared_by_the_iterations_is_still_shared() -> None:
    source = parse_source(
        dedent(
            """\
            #include <vector>
            double k(const double *y, int n, int a, int b) {
              std::vector<double> x(a * b);
              for (int i = 1; i < n; i++) {
                x[i] = x[i - 1] + y[i];
              }
              return x[3];
            }
            """
        ),
        "k.cpp",
    )
    (facts,) = analyze(source).facts
    assert not facts.parallel
