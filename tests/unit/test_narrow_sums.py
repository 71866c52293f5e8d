"""`+`/`*` reductions kept in `float` are refused: the grouping changes the digits."""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, analyze_text

_TEXT = """
#define N 6144
#define REAL float
typedef float real_t;
float fa[N];
double da[N];
TYPE total(void) {
  TYPE s = 0;
  for (int i = 0; i < N; i++) UPDATE;
  return s;
}
"""


def _fact(update: str, type_: str):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("TYPE", type_).replace("UPDATE", update)
    return next(f for f in analyze_text(text).facts if f.loop.function == "total")


@pytest.mark.parametrize(
    ("update", "type_"),
    [
        ("s += fa[i]", "float"),
        ("s = s + fa[i] * 0.5f", "float"),
        ("s *= 1.0f + 1e-4f * fa[i]", "float"),
        ("s -= fa[i]", "float"),
        ("s += da[i]", "float"),  # a double addend, rounded to float on each store
        ("s += fa[i]", "real_t"),
        ("s += fa[i]", "REAL"),
    ],
)
def test_a_float_total_is_refused(update: str, type_: str) -> None:
    fact = _fact(update, type_)
    assert not fact.parallel
    assert any("single precision" in o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    ("update", "type_"),
    [
        ("s += fa[i]", "double"),  # the total is double: far within the tolerance
        ("s += da[i]", "double"),
        ("if (fa[i] > s) s = fa[i]", "float"),  # max is exact in any type
        ("s += (int)fa[i]", "int"),
    ],
)
def test_exact_or_wide_totals_stay_reductions(update: str, type_: str) -> None:
    fact = _fact(update, type_)
    assert fact.parallel
    assert not any("single precision" in o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    "decl",
    ["float s[2] = {0.0f, 0.0f};", "real_t s[2] = {0};", "REAL s[4] = {0};"],
)
def test_a_float_array_total_gets_no_array_reduction(decl: str) -> None:
    # `s[1] += x` in `float` is a float total per element: a private copy per
    # thread groups the values otherwise (the eighth harm batch's probes)
    text = _TEXT.replace("TYPE s = 0;", decl).replace("TYPE", "double")
    text = text.replace("UPDATE", "s[1] += fa[i] * 0.37f").replace(
        "return s;", "return s[1];"
    )
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    fact = next(f for f in analysis.facts if f.loop.function == "total")
    assert not fact.array_reductions
    assert not fact.parallel


def test_a_double_array_total_keeps_its_array_reduction() -> None:
    text = _TEXT.replace("TYPE s = 0;", "double s[2] = {0.0, 0.0};")
    text = text.replace("TYPE", "double").replace("UPDATE", "s[1] += fa[i]")
    text = text.replace("return s;", "return s[1];")
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    fact = next(f for f in analysis.facts if f.loop.function == "total")
    assert fact.array_reductions


@pytest.mark.parametrize(
    ("decl", "update"),
    [
        # a global float histogram: each bin's atomic adds arrive in any order
        ("static float h[4];", "h[i & 3] += fa[i] * 0.37f"),
        ("static real_t h[4];", "h[(int)(fa[i] * 7.0f) & 3] += fa[i]"),
    ],
)
def test_a_float_histogram_gets_no_atomic_update(decl: str, update: str) -> None:
    text = _TEXT.replace("float fa[N];", f"float fa[N];\n{decl}")
    text = text.replace("TYPE", "double").replace("UPDATE", update)
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    fact = next(f for f in analysis.facts if f.loop.function == "total")
    assert not fact.parallel


def test_a_double_histogram_keeps_its_atomic_update() -> None:
    text = _TEXT.replace("float fa[N];", "float fa[N];\nstatic double h[4];")
    text = text.replace("TYPE", "double").replace("UPDATE", "h[i & 3] += fa[i]")
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    fact = next(f for f in analysis.facts if f.loop.function == "total")
    assert fact.parallel, [o.message for o in fact.obstacles]


@pytest.mark.parametrize(
    "spelling",
    [
        "float complex",
        "float _Complex",
        # read as a variable `float` of type `_Complex` (harm_blind9's probes)
        "_Complex float",
        "complex float",
        "float __complex__",
    ],
)
def test_a_complex_total_the_parse_misreads_is_refused(spelling: str) -> None:
    # the grammar reads `float complex s` as a variable `complex`: `s` keeps no
    # declaration, so its precision is unknown (a `float complex` total moved
    # the seventh digit in the eighth harm batch's probes)
    text = "#include <complex.h>\n" + _TEXT.replace("TYPE s = 0;", f"{spelling} s = 0;")
    text = text.replace("TYPE", "double").replace("UPDATE", "s += fa[i]")
    text = text.replace("return s;", "return crealf(s);")
    fact = next(f for f in analyze_text(text).facts if f.loop.function == "total")
    assert not fact.parallel


def test_a_complex_total_declared_after_statements_is_refused() -> None:
    # after a statement the grammar reads `_Complex float p = 0;` as `p` of type
    # `_Complex`: the precision word is lost (harm_blind9's m13)
    declared = "double d = 0;\n  d += 1;\n  _Complex float s = 0;"
    text = _TEXT.replace("TYPE s = 0;", declared)
    text = text.replace("TYPE", "double").replace("UPDATE", "s += fa[i]")
    text = text.replace("return s;", "return __real__ s + d;")
    fact = next(f for f in analyze_text(text).facts if f.loop.function == "total")
    assert not fact.parallel


_BLOCKS = """
double f(int n, const double *v) {
  double r = 0;
  {
    FIRST s = 0;
    for (int i = 0; i < n; ++i) s += v[i];
    r += s;
  }
  {
    SECOND s = 0;
    for (int i = 0; i < n; ++i) s += v[i];
    r += s;
  }
  return r;
}
"""


@pytest.mark.parametrize(
    ("first", "second"), [("double", "float"), ("float", "double")]
)
def test_each_block_s_own_total_is_read(first: str, second: str) -> None:
    # Not the function's first declaration of `s`: the one around the loop.
    text = _BLOCKS.replace("FIRST", first).replace("SECOND", second)
    facts = sorted(analyze_text(text).facts, key=lambda f: f.loop.span.start_byte)
    assert [f.parallel for f in facts] == [first == "double", second == "double"]
