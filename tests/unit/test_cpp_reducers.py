"""C++ sums of class values: `declare reduction` when `operator+=` adds fields."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze
from accls.frontend import parse_source
from accls.suggest import Suggestion, SuggestOptions, suggest_file
from accls.suggest.pragma import Dialect, Target

VEC = """\
    struct Vec3 {
      double x, y, z;
      Vec3() : x(0), y(0.0), z(0) {}
      Vec3 &operator+=(const Vec3 &o) {
        x += o.x;
        y += o.y;
        this->z += o.z;
        return *this;
      }
    };
    """

TOTAL = """\
    Vec3 total(const Vec3 *v, int n) {
      Vec3 s;
      for (int i = 0; i < n; i++) {
        s += v[i];
      }
      return s;
    }
    """

OMP = SuggestOptions(Dialect.OPENMP, Target.CPU)


def _top(text: str, options: SuggestOptions = OMP) -> Suggestion:
    source = parse_source(dedent(text), "k.cpp")
    analysis = analyze(source, AnalysisOptions(assume_no_alias=True))
    return next(s for s in suggest_file(analysis, options) if not s.inner)


def _why(found: Suggestion) -> str:
    return " | ".join(found.reasons)


def test_a_field_sum_gets_a_declared_reduction_after_the_class() -> None:
    found = _top(VEC + TOTAL)
    assert found.pragma is not None, _why(found)
    assert found.pragma.render() == "#pragma omp parallel for reduction(+:s)"
    (edit,) = found.routines
    assert edit.pragma.render() == (
        "#pragma omp declare reduction(+ : Vec3 : omp_out += omp_in) "
        "initializer(omp_priv = Vec3())"
    )
    assert edit.line == 11  # the line after `};`
    assert "`x`, `y`, `z`" in _why(found)


def test_an_aggregate_is_value_initialized_to_zero() -> None:
    text = """\
        struct Acc {
          double sum;
          long count = 0;
          void operator+=(Acc o) { sum += o.sum; count += o.count; }
        };
        Acc total(const Acc *v, int n) {
          Acc s{};
          for (int i = 0; i < n; i++) s += v[i];
          return s;
        }
        """
    found = _top(text)
    assert found.pragma is not None, _why(found)
    assert "omp_priv = Acc()" in found.routines[0].pragma.render()


def test_arithmetic_sums_get_no_declared_reduction() -> None:
    text = """\
        double total(const double *v, int n) {
          double s = 0;
          for (int i = 0; i < n; i++) s += v[i];
          return s;
        }
        """
    found = _top(VEC + text)
    assert found.pragma is not None
    assert found.routines == ()


def test_openacc_and_the_device_refuse_with_the_reason() -> None:
    acc = _top(VEC + TOTAL, SuggestOptions(Dialect.OPENACC, Target.GPU))
    assert acc.pragma is None
    assert "OpenACC" in _why(acc)
    assert "declare reduction" in _why(acc)
    gpu = _top(VEC + TOTAL, SuggestOptions(Dialect.OPENMP, Target.GPU))
    assert gpu.pragma is None
    assert "declare reduction" in _why(gpu)


def test_a_member_used_in_the_loop_refuses() -> None:
    text = """\
        void running(const Vec3 *v, double *out, int n) {
          Vec3 s;
          for (int i = 0; i < n; i++) {
            s += v[i];
            out[i] = s.x;
          }
        }
        """
    found = _top(VEC + text)
    assert found.pragma is None
    # `s.x` reads the running sum: the reducer refuses it, or the scalar rules
    # do first (the member read is a read of `s` carried between iterations).
    why = _why(found)
    assert "`s.x` is used at line 15" in why or "flows between iterations" in why


def _refusal(cls: str) -> str:
    found = _top(cls + TOTAL)
    assert found.pragma is None
    return _why(found)


def test_an_operator_with_a_side_effect_is_no_sum() -> None:
    why = _refusal(
        """\
        static long merges = 0;
        struct Vec3 {
          double x;
          Vec3() : x(0) {}
          Vec3 &operator+=(const Vec3 &o) { x += o.x; merges++; return *this; }
        };
        """
    )
    assert "is not a sum of fields" in why
    assert "`merges++;`" in why


def test_an_operator_that_scales_is_no_sum() -> None:
    why = _refusal(
        """\
        struct Vec3 {
          double x;
          Vec3() : x(0) {}
          Vec3 &operator+=(const Vec3 &o) { x += 2 * o.x; return *this; }
        };
        """
    )
    assert "is not a sum of fields" in why


def test_a_constructor_that_is_not_zero_is_no_identity() -> None:
    why = _refusal(
        """\
        struct Vec3 {
          double x, y;
          Vec3() : x(0) {}
          Vec3 &operator+=(const Vec3 &o) { x += o.x; y += o.y; return *this; }
        };
        """
    )
    assert "is not its identity (it leaves `y` unset)" in why
    why = _refusal(
        """\
        struct Vec3 {
          double x = 1.0;
          Vec3 &operator+=(const Vec3 &o) { x += o.x; return *this; }
        };
        """
    )
    assert "`x` starts as `1.0`" in why


def test_a_derived_class_is_no_sum() -> None:
    why = _refusal(
        """\
        struct Base { double w; };
        struct Vec3 : Base {
          double x;
          Vec3() : x(0) {}
          Vec3 &operator+=(const Vec3 &o) { x += o.x; return *this; }
        };
        """
    )
    assert "has a base class" in why


def test_the_code_action_title_shows_the_declared_reduction() -> None:
    from accls.server.offers.pragma import _routines_title

    title = _routines_title(_top(VEC + TOTAL))
    assert title == (
        ", and `#pragma omp declare reduction(+ : Vec3 : omp_out += omp_in) "
        "initializer(omp_priv = Vec3())`"
    )


def test_a_declaration_of_the_files_own_is_reused_or_refused() -> None:
    ours = (
        "#pragma omp declare reduction(+ : Vec3 : omp_out += omp_in) "
        "initializer(omp_priv = Vec3())\n"
    )
    found = _top(VEC + ours + TOTAL)
    assert found.pragma is not None, _why(found)
    assert found.routines == ()
    assert "declared at line 11" in _why(found)
    theirs = "#pragma omp declare reduction(+ : Vec3 : omp_out = omp_in)\n"
    found = _top(VEC + theirs + TOTAL)
    assert found.pragma is None
    assert "declares itself at line 11" in _why(found)
