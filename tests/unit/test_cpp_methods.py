"""C++ accessor methods: `d.fx(i)` is the element `m_fx[i]` of the object `d`."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import SourceFile, parse_source
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

_CLASS = """\
#include <vector>
class D {
 public:
  double& a(int i) { return a_[i]; }
  const double& a(int i) const { return a_[i]; }
  double& b(int i) { return b_[i]; }
  double& row(int i, int j) { return a_[8 * i + j]; }
  int& num() { return n_; }
  int width(int i) { return s_[i + 1] - s_[i]; }
  double& bad(int i) { return a_[i + n_]; }
  std::vector<double> a_;
  std::vector<double> b_;
  std::vector<int> s_;
  int n_;
};
"""


def _cpp(body: str) -> SourceFile:
    return parse_source(_CLASS + dedent(body), "k.cpp")


def _verdicts(body: str) -> list[tuple[bool, str]]:
    """Each loop's (parallel, obstacles' messages joined), in order."""
    facts = analyze(_cpp(body)).facts
    return [
        (f.parallel, " | ".join(o.message for o in f.obstacles))
        for f in sorted(facts, key=lambda f: f.loop.line)
    ]


def test_an_accessor_call_is_the_element_it_returns() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(D& d, int n) {
          for (int i = 0; i < n; i++) {
            d.a(i) = d.b(i) * 2.0 + d.width(i);
          }
        }
        """
    )
    assert ok, why


def test_an_accessor_keeps_the_dependence_of_its_subscripts() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(D& d, int n) {
          for (int i = 0; i < n - 1; i++) {
            d.a(i) = d.a(i + 1);
          }
        }
        """
    )
    assert not ok
    assert "d->a_[i + 1]" in why
    assert "distance 1" in why


def test_a_scalar_member_written_through_an_accessor_is_shared() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(D& d, int n) {
          for (int i = 0; i < n; i++) {
            d.num() += 1;
          }
        }
        """
    )
    assert not ok
    assert "d->n_" in why


def test_two_references_to_objects_may_be_the_same_object() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(D& d, D& e, int n) {
          for (int i = 0; i < n; i++) {
            d.a(i) = e.a(i + 1);
          }
        }
        """
    )
    assert not ok
    assert "may overlap" in why


def test_a_pointer_parameter_may_point_into_a_member() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(D& d, double *p, int n) {
          for (int i = 0; i < n; i++) {
            d.a(i) = p[i];
          }
        }
        """
    )
    assert not ok
    assert "`p`" in why


def test_a_method_reading_a_scalar_member_in_its_subscript_reaches_the_element() -> (
    None
):
    [(ok, why)] = _verdicts(
        """\
        void f(D& d, int n) {
          for (int i = 0; i < n; i++) {
            d.bad(i) = 1.0;
          }
        }
        """
    )
    assert ok, why


def test_the_member_in_the_subscript_written_in_the_loop_is_refused() -> None:
    [(ok, _)] = _verdicts(
        """\
        void f(D& d, int n) {
          for (int i = 0; i < n; i++) {
            d.bad(i) = 1.0;
            d.n_ = i;
          }
        }
        """
    )
    assert not ok


def test_a_member_kernel_over_two_vectors_is_parallel_on_the_cpu_only() -> None:
    source = parse_source(
        dedent(
            """\
            #include <vector>
            class K {
             public:
              void run(int n) {
                for (int i = 0; i < n; i++) {
                  x_[i] = y_[i] + 1.0;
                }
              }
              std::vector<double> x_, y_;
            };
            """
        ),
        "k.cpp",
    )
    analysis = analyze(source)
    [fact] = analysis.facts
    assert fact.parallel
    cpu = suggest_file(analysis, SuggestOptions(Dialect.OPENMP, Target.CPU))
    gpu = suggest_file(analysis, SuggestOptions(Dialect.OPENACC, Target.GPU))
    assert cpu[0].pragma is not None
    assert "parallel for" in str(cpu[0].pragma)
    assert gpu[0].pragma is None
    assert any("container member" in r for r in gpu[0].reasons)


def test_a_method_returning_an_address_is_a_pointer_into_the_member() -> None:
    source = parse_source(
        dedent(
            """\
            #include <vector>
            class M {
             public:
              int* nodes(int i) { return &m_nodes[8 * i]; }
              double& x(int i) { return m_x[i]; }
              std::vector<int> m_nodes;
              std::vector<double> m_x;
            };
            void f(M& m, double *__restrict__ out, int n) {
              for (int i = 0; i < n; i++) {
                const int *const e = m.nodes(i);
                double s = 0.0;
                for (int k = 0; k < 8; k++) s += m.x(e[k]);
                out[i] = s;
              }
            }
            """
        ),
        "k.cpp",
    )
    outer = min(analyze(source).facts, key=lambda f: f.loop.line)
    assert outer.parallel, [o.message for o in outer.obstacles]


def test_a_template_allocator_through_static_cast_returns_fresh_blocks() -> None:
    source = parse_source(
        dedent(
            """\
            #include <cstdlib>
            template <typename T>
            T *Allocate(size_t size) {
              return static_cast<T *>(malloc(sizeof(T) * size));
            }
            static void fill(double *a, double *b, int n) {
              for (int i = 0; i < n; ++i) {
                a[i] = b[i] = 1.0;
              }
            }
            void run(int n) {
              double *a = Allocate<double>(n);
              double *b = Allocate<double>(n);
              fill(a, b, n);
              free(a);
              free(b);
            }
            """
        ),
        "k.cpp",
    )
    [fact] = analyze(source).facts
    assert fact.parallel, [o.message for o in fact.obstacles]


def test_a_virtual_accessor_or_one_of_a_derived_class_stays_a_call() -> None:
    source = parse_source(
        dedent(
            """\
            #include <vector>
            class B {
             public:
              virtual double& a(int i) { return a_[i]; }
              std::vector<double> a_;
            };
            class C : public B {
             public:
              double& c(int i) { return c_[i]; }
              std::vector<double> c_;
            };
            void f(B& d, int n) {
              for (int i = 0; i < n; i++) d.a(i) = 1.0;
            }
            void h(C& d, int n) {
              for (int i = 0; i < n; i++) d.c(i) = 1.0;
            }
            """
        ),
        "k.cpp",
    )
    facts = sorted(analyze(source).facts, key=lambda f: f.loop.line)
    assert [f.parallel for f in facts] == [False, False]
    assert "B::a" in " ".join(o.message for o in facts[0].obstacles)
    assert "C::c" in " ".join(o.message for o in facts[1].obstacles)
