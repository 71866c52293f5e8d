"""C++ calls told apart: in-class overloads, `Base::g(x)`, static constexpr members."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source
from accls.frontend.cpp_types import ClassInfo, CxxScope


def _verdicts(text: str) -> list[tuple[bool, str]]:
    """Each loop's (parallel, obstacles' messages joined), in order."""
    facts = analyze(parse_source(dedent(text), "k.cpp")).facts
    return [
        (f.parallel, " | ".join(o.message for o in f.obstacles))
        for f in sorted(facts, key=lambda f: f.loop.line)
    ]


_OVERLOADS = """\
#include <vector>
class Acc {
 public:
  double s;
  double f(int x) { return x * 2.0; }
  double f(double x, double y) { s += x; return s + y; }
  double run(int n) {
    std::vector<double> out(n);
    for (int i = 0; i < n; i++) {
      out[i] = f(ARGS);
    }
    return out[0];
  }
};
"""


def test_an_in_class_overload_too_few_arguments_cannot_run_is_ruled_out() -> None:
    # A method defined in its class has no other declaration to add defaults:
    # `f(i)` runs `f(int)`, which writes nothing.
    [(ok, why)] = _verdicts(_OVERLOADS.replace("ARGS", "i"))
    assert ok, why


def test_the_in_class_overload_that_writes_the_object_stays_refused() -> None:
    [(ok, why)] = _verdicts(_OVERLOADS.replace("ARGS", "i, 1.0"))
    assert not ok
    assert "Acc::f" in why


def test_a_base_overload_brought_in_by_using_is_not_the_derived_one() -> None:
    # `f(i)` runs Base::f(int), which writes the object: Der::f(double, double)
    # cannot take one argument, so its summary (writes nothing) is not the call's.
    [(ok, why)] = _verdicts(
        """\
        #include <vector>
        class Base {
         public:
          double s;
          double f(int x) { s += x; return s; }
        };
        class Der : public Base {
         public:
          using Base::f;
          double f(double x, double y) { return x + y; }
          double run(int n) {
            std::vector<double> out(n);
            for (int i = 0; i < n; i++) {
              out[i] = f(i);
            }
            return out[0];
          }
        };
        """
    )
    assert not ok
    assert "Der::f" in why


def test_overloads_of_one_count_stay_unknown() -> None:
    [(ok, why)] = _verdicts(
        """\
        #include <vector>
        class Acc {
         public:
          double s;
          double f(double x) { s += x; return s; }
          double f(int x) { return x * 2.0; }
          double run(int n) {
            std::vector<double> out(n);
            for (int i = 0; i < n; i++) {
              out[i] = f(i);
            }
            return out[0];
          }
        };
        """
    )
    assert not ok
    assert "several definitions" in why


def test_an_overload_picked_by_count_gives_its_own_return_type() -> None:
    # `m.v(i, 1)` returns a V: its `+` is the file's operator, which writes
    # `hits`; the other overload's `double` would make it the builtin `+`.
    [(ok, why)] = _verdicts(
        """\
        #include <vector>
        int hits = 0;
        struct V { double a; };
        V operator+(V x, double y) { hits++; V r; r.a = x.a + y; return r; }
        class M {
         public:
          std::vector<double> d;
          V v(int i, int j) { V r; r.a = d[i] + j; return r; }
          double v(int i) { return d[i]; }
        };
        double run(M &m, int n) {
          std::vector<double> out(n);
          for (int i = 0; i < n; i++) {
            V t = m.v(i, 1) + 2.0;
            out[i] = t.a;
          }
          return out[0];
        }
        """
    )
    assert not ok
    assert "operator+" in why


_BASE = """\
#include <vector>
class Base {
 public:
  double k;
  double g(double x) { BODY }
};
class Der : public Base {
 public:
  double g(double x) { return Base::g(x) + 1.0; }
  double run(int n) {
    std::vector<double> out(n);
    for (int i = 0; i < n; i++) {
      out[i] = Base::g(i);
    }
    return out[0];
  }
};
"""


def test_a_base_method_named_in_a_derived_method_is_its_definition() -> None:
    [(ok, why)] = _verdicts(_BASE.replace("BODY", "return k * x;"))
    assert ok, why


def test_a_base_method_writing_a_member_stays_refused() -> None:
    [(ok, why)] = _verdicts(_BASE.replace("BODY", "k += x; return k;"))
    assert not ok
    assert "Base::g" in why


_CONSTANT = """\
template <int N> struct Fact { static constexpr long value = N * Fact<N - 1>::value; };
template <> struct Fact<0> { static constexpr long value = 1; };
SPECIAL
void run(long *y, int n) {
  for (int i = 0; i < n; i++) {
    y[i] = Fact<5>::value + i;
  }
}
"""


def test_a_static_constexpr_member_of_a_template_instance_is_a_constant() -> None:
    [(ok, why)] = _verdicts(_CONSTANT.replace("SPECIAL", ""))
    assert ok, why


def test_a_specialization_with_a_writable_static_member_stays_unknown() -> None:
    special = "template <> struct Fact<5> { static long value; };"
    [(ok, _)] = _verdicts(_CONSTANT.replace("SPECIAL", special))
    assert not ok


def test_a_static_pointer_to_const_is_no_constant() -> None:
    [(ok, _)] = _verdicts(
        """\
        struct P { static const double *p; };
        void run(double *y, int n) {
          for (int i = 0; i < n; i++) {
            y[i] = P::p[i];
          }
        }
        """
    )
    assert not ok


_INHERITED = """\
#include <vector>
class Base {
 public:
  double k;
};
class Der : public Base {
 public:
  double h(double x) { BODY }
  double run(int n) {
    std::vector<double> out(n);
    for (int i = 0; i < n; i++) {
      out[i] = h(i);
    }
    return out[0];
  }
};
"""


def test_a_base_member_named_bare_in_a_derived_method_is_read_of_this() -> None:
    [(ok, why)] = _verdicts(_INHERITED.replace("BODY", "return k + x;"))
    assert ok, why


def test_a_derived_method_writing_a_base_member_stays_refused() -> None:
    [(ok, why)] = _verdicts(_INHERITED.replace("BODY", "k += x; return k;"))
    assert not ok
    assert "Der::h" in why


_INHERITED_CALL = """\
#include <vector>
class Base {
 public:
  double k;
  double g(double x) { return k * x; }
  double w(double x) { k += x; return k; }
  virtual double v(double x) { return x; }
};
class Der : public Base {
 public:
  double run(int n) {
    std::vector<double> out(n);
    for (int i = 0; i < n; i++) {
      out[i] = CALL(i);
    }
    return out[0];
  }
};
"""


def test_a_base_method_called_bare_in_a_derived_method_is_its_definition() -> None:
    [(ok, why)] = _verdicts(_INHERITED_CALL.replace("CALL", "g"))
    assert ok, why


def test_a_base_method_called_bare_that_writes_a_member_stays_refused() -> None:
    [(ok, why)] = _verdicts(_INHERITED_CALL.replace("CALL", "w"))
    assert not ok
    assert "Base::w" in why


def test_a_virtual_base_method_called_bare_stays_unknown() -> None:
    [(ok, why)] = _verdicts(_INHERITED_CALL.replace("CALL", "v"))
    assert not ok
    assert "virtual" in why


def test_overloads_all_returning_builtin_values_keep_builtin_operators() -> None:
    # `float F(float)` and `double F(double)`: whichever runs, `<` is the
    # language's, not a call.
    [(_, why)] = _verdicts(
        """\
        inline float F(float a) { return a * 2.0f; }
        inline double F(double a) { return a * 2.0; }
        void run(const double *__restrict x, double *__restrict y, int n) {
          for (int i = 0; i < n; i++) {
            y[i] = F(x[i]) < 1.0 ? 0.0 : 1.0;
          }
        }
        """
    )
    assert "auto::operator" not in why


def test_a_constructor_call_is_not_ruled_out_by_its_this_parameter() -> None:
    # `P(a[i])` passes no object: the count rule of in-class methods (which
    # counts `this`) leaves constructors alone.
    [(_, why)] = _verdicts(
        """\
        struct P {
          double v;
          explicit P(double a) : v(a) { v = v * 2.0; }
        };
        void fill(P *out, const double *a, int n) {
          for (int i = 0; i < n; i++) {
            out[i] = P(a[i]);
          }
        }
        """
    )
    assert "does not take that many" not in why


def test_a_header_class_of_the_same_name_leaving_the_member_writable() -> None:
    scope, headers = CxxScope(), CxxScope()
    scope.classes["Fact"] = ClassInfo("Fact", fields={"value": "long"})
    scope.classes["Fact"].constants.add("value")
    headers.classes["Fact"] = ClassInfo("Fact", fields={"value": "long"})
    headers.classes["Fact"].varying.add("value")
    scope.merge(headers)
    assert "value" in scope.classes["Fact"].varying


def test_a_header_class_keeps_every_fact_through_the_merge() -> None:
    # A class only the headers declare is copied whole: a lost fact (its
    # bit-fields, its conversion operators) would hide a shared write.
    headers, scope = CxxScope(), CxxScope()
    info = ClassInfo("Probe", fields={"v": "double", "lo": "unsigned"})
    info.bitfields.add("lo")
    info.conversions.add("double")
    headers.classes["Probe"] = info
    scope.merge(headers)
    merged = scope.classes["Probe"]
    assert merged == info
    assert merged.conversions is not info.conversions
