"""`constexpr` globals are read-only, and `::max` is `max` looked up globally.

A `constexpr` scalar holds a compile-time value nothing writes: the cost
model reads it as a trip count like a `const` one. `::max(m, a[i])` names the
global `max`, which `using namespace std` makes `std::max`: a `max` reduction.
"""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze
from accls.analysis.cost_globals import global_constants
from accls.analysis.model import ScalarClass
from accls.frontend import RedOp, parse_source


def test_constexpr_scalars_are_const_and_a_constexpr_pointer_not_its_target() -> None:
    source = parse_source(
        dedent(
            """\
            constexpr int NX = 64;
            static constexpr double H = 0.5;
            constexpr double W[2] = {1.0, 2.0};
            double g = 1.0;
            constexpr double *P = nullptr;
            """
        ),
        "k.cpp",
    )
    const = {v.name: v.const for v in source.globals}
    assert const == {"NX": True, "H": True, "W": True, "g": False, "P": False}


def test_a_constexpr_global_is_a_known_trip_count() -> None:
    source = parse_source(
        dedent(
            """\
            constexpr int NX = 64;
            static constexpr int NY = 2 * NX;
            void f(double *a) {
              for (int i = 0; i < NY; i++) { a[i] = 0.0; }
            }
            """
        ),
        "k.cpp",
    )
    (fn,) = source.functions
    found = global_constants(source, fn, {})
    assert {k: v.constant for k, v in found.items()} == {"NX": 64, "NY": 128}


def _verdict(call: str, head: str) -> tuple[bool, str, str]:
    text = dedent(head) + dedent(
        f"""\
        double f(int n, const double *a) {{
          double m = 0.0;
          for (int i = 0; i < n; i++) {{ m = {call}; }}
          return m;
        }}
        """
    )
    analysis = analyze(parse_source(text, "k.cpp"), AnalysisOptions())
    (fact,) = analysis.facts
    reductions = " ".join(
        f"{s.op}:{s.name}" for s in fact.scalars if s.cls is ScalarClass.REDUCTION
    )
    return fact.parallel, reductions, " | ".join(o.message for o in fact.obstacles)


def test_a_global_max_brought_in_by_using_namespace_std_is_a_reduction() -> None:
    head = "#include <algorithm>\nusing namespace std;\n"
    parallel, reductions, why = _verdict("::max(m, a[i])", head)
    assert parallel, why
    assert reductions == f"{RedOp.MAX}:m"


def test_a_global_max_without_using_namespace_std_stays_a_call() -> None:
    head = "#include <algorithm>\ndouble max(double x, double y);\n"
    parallel, reductions, _ = _verdict("::max(m, a[i])", head)
    assert not parallel
    assert reductions == ""
