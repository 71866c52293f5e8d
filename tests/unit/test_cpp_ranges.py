"""C++ range-based `for`: an index loop over the range's elements."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import Loop, parse_source
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.suggest.suggestion import Suggestion


def _loops(text: str) -> dict[int, Loop]:
    source = parse_source(dedent(text), "k.cpp")
    return {loop.line: loop for loop in source.loops()}


def _verdicts(text: str) -> dict[int, tuple[bool, str]]:
    facts = analyze(parse_source(dedent(text), "k.cpp")).facts
    return {
        f.loop.line: (f.parallel, " | ".join(o.message for o in f.obstacles))
        for f in facts
    }


def _suggest(text: str, dialect: Dialect, target: Target) -> dict[int, Suggestion]:
    analysis = analyze(parse_source(dedent(text), "k.cpp"))
    found = suggest_file(analysis, SuggestOptions(dialect, target))
    return {s.loop.line: s for s in found}


SCALE = """\
    #include <vector>
    void scale(std::vector<double> &v, double s) {
      for (double &x : v) x = x * s;
    }
    """


def test_a_range_for_is_a_loop_over_the_elements() -> None:
    loop = _loops(SCALE)[3]
    assert loop.range_for is not None
    assert loop.range_for.range == "v"
    assert loop.range_for.size == "v.size()"
    assert loop.title == "for (x : v)"
    assert loop.var is not None
    assert loop.var not in {"x", "v", "s"}
    assert {r.name for r in loop.refs if r.is_write} == {"v"}


def test_a_range_for_by_reference_is_parallel_in_openmp() -> None:
    found = _suggest(SCALE, Dialect.OPENMP, Target.CPU)[3]
    assert found.pragma is not None
    assert found.pragma.render().startswith("#pragma omp parallel for")


def test_openacc_refuses_a_range_for_and_gives_the_index_loop() -> None:
    found = _suggest(SCALE, Dialect.OPENACC, Target.GPU)[3]
    assert found.pragma is None
    why = " ".join(found.reasons)
    assert "range-based" in why
    assert "for (std::size_t i = 0; i < v.size(); ++i) { double &x = v[i]; ... }" in why


def test_a_copy_of_each_element_sums_as_a_reduction() -> None:
    text = """\
        #include <vector>
        double total(const std::vector<double> &v) {
          double t = 0.0;
          for (double x : v) { x = x * 0.5; t += x; }
          return t;
        }
        """
    found = _suggest(text, Dialect.OPENMP, Target.CPU)[4]
    assert found.pragma is not None
    assert "reduction(+:t)" in found.pragma.render()


def test_a_c_array_range_has_its_extent_as_trip_count() -> None:
    loop = _loops(
        """\
        void zero(void) {
          double a[100];
          for (double &y : a) y = 0.0;
        }
        """
    )[3]
    assert loop.range_for is not None
    assert loop.trip_count == "100"


def test_indexing_by_an_element_value_is_a_scatter_not_the_iteration() -> None:
    # `a[j]` with j the element's value: two iterations may store to one place.
    parallel, why = _verdicts(
        """\
        #include <vector>
        void scatter(const std::vector<int> &idx, double *a) {
          for (int j : idx) a[j] = 1.0 + a[j] * a[j];
        }
        """
    )[3]
    assert not parallel
    assert "reads another array" in why


def test_a_range_over_a_list_is_refused_as_not_random_access() -> None:
    parallel, why = _verdicts(
        """\
        #include <list>
        void halve(std::list<double> &l) {
          for (double &x : l) x = x / 2.0;
        }
        """
    )[3]
    assert not parallel
    assert "not random access" in why


def test_push_back_while_ranging_over_the_same_vector_is_refused() -> None:
    parallel, why = _verdicts(
        """\
        #include <vector>
        void grow(std::vector<double> &v) {
          for (double x : v) v.push_back(x);
        }
        """
    )[3]
    assert not parallel
    assert "std::vector::push_back" in why


def test_reading_a_stream_into_each_element_is_refused() -> None:
    parallel, why = _verdicts(
        """\
        #include <istream>
        #include <vector>
        void load(std::istream &in, std::vector<double> &v) {
          for (double &x : v) in >> x;
        }
        """
    )[4]
    assert not parallel
    assert "std::stream::operator>>" in why


def test_a_range_of_an_unknown_class_is_an_unknown_call() -> None:
    parallel, why = _verdicts(
        """\
        #include "grid.h"
        void clear(Grid &g) {
          for (auto &c : g) c = 0;
        }
        """
    )[3]
    assert not parallel
    assert "Grid::begin" in why


def test_a_copy_constructor_with_a_side_effect_is_a_call_that_refuses() -> None:
    parallel, why = _verdicts(
        """\
        #include <vector>
        int copies = 0;
        struct P {
          double x;
          P(const P &o) : x(o.x) { copies++; }
        };
        double sum(const std::vector<P> &ps) {
          double s = 0.0;
          for (P p : ps) s += p.x;
          return s;
        }
        """
    )[9]
    assert not parallel
    assert "P::P" in why


def test_a_plain_struct_copied_per_element_is_parallel() -> None:
    parallel, _ = _verdicts(
        """\
        #include <vector>
        struct P { double x; double v; };
        double mass(const std::vector<P> &ps) {
          double m = 0.0;
          for (const P p : ps) m += p.x * p.v;
          return m;
        }
        """
    )[5]
    assert parallel


def test_nested_ranges_with_one_element_name_have_their_own_indices() -> None:
    loops = _loops(
        """\
        #include <vector>
        void f(std::vector<double> &a, std::vector<double> &b) {
          for (double &x : a) {
            for (double &x : b) x = 0.0;
            x = 1.0;
          }
        }
        """
    )
    outer, inner = loops[3], loops[4]
    assert outer.var != inner.var
    assert outer.title == inner.title.replace("b", "a")


def test_the_index_loop_keeps_the_element_s_const() -> None:
    src = dedent(
        """\
        #include <vector>
        long f(const std::vector<int> &keep) {
          long s = 0;
          for (const int &x : keep) s += x;
          return s;
        }
        """
    )
    (loop,) = parse_source(src, "t.cpp").nests
    assert loop.range_for is not None
    assert "{ const int &x = keep[i]; ... }" in loop.range_for.rewrite
    assert loop.range_for.type == "int"
