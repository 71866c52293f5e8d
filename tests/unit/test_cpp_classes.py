"""C++ classes in loops: constructors as calls or values, private copies."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, ObstacleCode, analyze
from accls.frontend import parse_source

VEC = """\
    struct Vec3 {
      double x, y, z;
      Vec3(double a, double b, double c) : x(a), y(b), z(c) {}
    };
    """


def _facts(text: str, *, alias: bool = True) -> dict[int, tuple[bool, set[str], str]]:
    source = parse_source(dedent(VEC) + dedent(text), "k.cpp")
    analysis = analyze(source, AnalysisOptions(assume_no_alias=alias))
    return {
        f.loop.line: (
            f.parallel,
            {str(o.code) for o in f.obstacles},
            " | ".join(o.message for o in f.obstacles),
        )
        for f in analysis.facts
    }


def test_a_constructor_that_stores_its_arguments_is_no_call() -> None:
    found = _facts(
        """\
        void f(Vec3 *out, const double *a, int n) {
          for (int i = 0; i < n; i++) out[i] = Vec3(a[i], a[i], 1.0);
        }
        """
    )
    assert found[6][0], found[6][2]


def test_a_constructor_with_a_side_effect_is_a_call() -> None:
    found = _facts(
        """\
        static int made = 0;
        struct Loud { double v; Loud(double a) : v(a) { made++; } };
        void f(Loud *out, const double *a, int n) {
          for (int i = 0; i < n; i++) out[i] = Loud(a[i]);
        }
        """
    )
    parallel, codes, why = found[8]
    assert not parallel
    assert "call" in codes
    assert "Loud::Loud" in why


def test_a_constructor_defined_elsewhere_is_a_call() -> None:
    found = _facts(
        """\
        struct W { double v; W(double a); };
        void f(W *out, const double *a, int n) {
          for (int i = 0; i < n; i++) out[i] = W(a[i]);
        }
        """
    )
    assert not found[7][0]


def test_a_member_of_class_type_makes_its_constructor_a_call() -> None:
    found = _facts(
        """\
        static int made = 0;
        struct Loud { double v; Loud(double a) : v(a) { made++; } };
        struct Outer { Loud inner; double s; Outer(double a) : inner(a), s(a) {} };
        void f(Outer *out, const double *a, int n) {
          for (int i = 0; i < n; i++) out[i] = Outer(a[i]);
        }
        """
    )
    assert not found[9][0]


def test_a_private_copy_of_a_class_with_no_default_constructor_is_refused() -> None:
    found = _facts(
        """\
        void f(Vec3 *out, const double *a, int n) {
          Vec3 t(0.0, 0.0, 0.0);
          for (int i = 0; i < n; i++) {
            t = Vec3(a[i], 1.0, 2.0);
            out[i] = t;
          }
        }
        """
    )
    parallel, codes, why = found[7]
    assert not parallel
    assert codes == {str(ObstacleCode.CLASS_PRIVATE)}
    assert "declare `t` inside the loop" in why


def test_a_class_with_a_default_constructor_can_be_private() -> None:
    found = _facts(
        """\
        struct P { double x; P() : x(0.0) {} P(double a) : x(a) {} };
        void f(P *out, const double *a, int n) {
          P t;
          for (int i = 0; i < n; i++) {
            t = P(a[i]);
            out[i] = t;
          }
        }
        """
    )
    assert found[8][0], found[8][2]


def test_a_temporary_with_a_counting_destructor_is_a_call() -> None:
    found = _facts(
        """\
        static int alive = 0;
        struct T { double v; T(double a) : v(a) {} ~T() { alive--; } };
        void f(double *out, const double *a, int n) {
          for (int i = 0; i < n; i++) out[i] = T(a[i]).v;
          for (int i = 0; i < n; i++) { T t(a[i]); out[i] = t.v; }
        }
        """
    )
    assert not found[8][0]
    assert "T::~T" in found[8][2]
    assert not found[9][0]
    assert "T::~T" in found[9][2]


def test_a_default_constructed_member_runs_its_constructor() -> None:
    found = _facts(
        """\
        static int made = 0;
        struct C { double v; C() : v(0.0) { made++; } };
        struct Q { C c; double s; Q(double a) : s(a) {} };
        void f(Q *out, const double *a, int n) {
          for (int i = 0; i < n; i++) out[i] = Q(a[i]);
        }
        """
    )
    assert not found[9][0]


def test_a_member_of_a_call_result_walks_the_call_in_c_too() -> None:
    # `next(a[i]).v`: the call was never seen, and the loop got `parallel for`.
    source = parse_source(
        dedent(
            """\
            struct S { double v; };
            struct S next(double a);
            void f(double *restrict out, const double *restrict a, int n) {
              for (int i = 0; i < n; i++) out[i] = next(a[i]).v;
            }
            """
        ),
        "k.c",
    )
    [fact] = analyze(source).facts
    assert [c.name for c in fact.loop.calls] == ["next"]
    assert not fact.parallel


def test_a_bare_method_call_in_a_method_is_a_call_on_this() -> None:
    source = parse_source(
        dedent(
            """\
            class Mesh {
             public:
              double scale(double x) const { return 2.0 * x; }
              void bump() { count++; }
              static double twice(double x) { return 2.0 * x; }
              void run(double *__restrict__ out, const double *__restrict__ a, int n) {
                for (int i = 0; i < n; i++) out[i] = scale(a[i]);
                for (int i = 0; i < n; i++) { out[i] = a[i]; bump(); }
                for (int i = 0; i < n; i++) out[i] = twice(a[i]);
              }
              int count = 0;
            };
            """
        ),
        "k.cpp",
    )
    facts = {f.loop.line: f for f in analyze(source).facts}
    calls = {
        line: [(c.name, c.args) for c in f.loop.calls] for line, f in facts.items()
    }
    assert calls[7] == [("Mesh::scale", ("this", "a[i]"))]
    assert calls[9] == [("Mesh::twice", ("a[i]",))]
    assert facts[7].parallel
    assert not facts[8].parallel
    assert "Mesh::bump" in " ".join(o.message for o in facts[8].obstacles)
    assert facts[9].parallel
