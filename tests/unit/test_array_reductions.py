"""Array reductions: an array a loop only accumulates into, with a proved section.

`reduction(+:hist)` for a fixed-size array, `reduction(+:c[0:10])` where inner
loops of constant bounds give the indices; refused when the array is read
otherwise, updated with two operators, reached through another name, indexed
outside a section known before the loop, or in OpenACC (gcc 12 fails on it).
"""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, ObstacleCode, analyze_text
from accls.frontend import RedOp
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

HEADER = "#define NB 12\nint g[16];\nvoid use(int);\n"


def _outer(
    body: str, params: str = "", dialect: str = "omp", bound: str = "n"
) -> LoopFacts:
    text = (
        f"{HEADER}int f(int n, const int *restrict v, const double *restrict w"
        f"{params}) {{\n  int hist[16] = {{0}};\n  double col[8] = {{0}};\n"
        f"  for (int i = 0; i < {bound}; i++) {{\n{body}\n  }}\n  return hist[1];\n}}\n"
    )
    analysis = analyze_text(text, options=AnalysisOptions(dialect=dialect))
    return analysis.facts[0]


@pytest.mark.parametrize(
    ("body", "params", "name", "op", "section"),
    [
        # A bounded bin of a local histogram: any in-bounds index is in it.
        ("int b = v[i] & 15;\n hist[b] += 1;", "", "hist", RedOp.ADD, ""),
        ("int b = v[i] % 16;\n g[b] = g[b] + 2;", "", "g", RedOp.ADD, ""),
        # Column sums through a pointer: the inner loop bounds the section.
        (
            "for (int j = 0; j < 10; j++) c[j] += v[i * 10 + j];",
            ", int *restrict c",
            "c",
            RedOp.ADD,
            "[0:10]",
        ),
        (
            "for (int j = 2; j <= 5; j++) c[j + 1] *= v[i];",
            ", int *restrict c",
            "c",
            RedOp.MUL,
            "[3:4]",
        ),
        ("c[k] += v[i];", ", int *restrict c, int k", "c", RedOp.ADD, "[k:1]"),
        (
            "for (int j = 0; j < NB; j++) c[j] += 1;",
            ", int *c",
            "c",
            RedOp.ADD,
            "[0:12]",
        ),
        # An array object is reduced whole, even where a section would do:
        # clang 14 sums a section of a global array wrongly (`g[0:4]`).
        ("for (int j = 0; j < 8; j++) col[j] += w[i];", "", "col", RedOp.ADD, ""),
        ("for (int j = 0; j < 4; j++) g[j] += v[i];", "", "g", RedOp.ADD, ""),
        # A pointer set inside the loop takes the thread's private copy.
        (
            "int b = v[i] & 15;\n int *q = hist;\n hist[b] += 1;\n q[b] += 1;",
            "",
            "hist",
            RedOp.ADD,
            "",
        ),
        # Guarded: the serial run may touch none of `[0:32]`; the array is there.
        (
            "for (int j = 0; j < 32; j++) if (j < 16) hist[j] += 1;",
            "",
            "hist",
            RedOp.ADD,
            "",
        ),
    ],
)
def test_an_array_only_accumulated_into_is_a_reduction(
    body: str, params: str, name: str, op: RedOp, section: str
) -> None:
    facts = _outer(body, params, bound="100")
    assert facts.parallel, facts.obstacles
    (red,) = facts.array_reductions
    assert (red.name, red.op, red.section) == (name, op, section)


@pytest.mark.parametrize(
    ("body", "params"),
    [
        # The section would have to be `c[0:m]`: a variable length (0 crashes).
        ("for (int j = 0; j < m; j++) c[j] += v[i];", ", int *restrict c, int m"),
        # The index is not bounded by a loop of constant bounds.
        ("for (int j = 0; j < 4; j++) c[j + i] += 1;", ", int *restrict c"),
        # Read otherwise in the loop: the private copy would be read.
        ("int b = v[i] & 15;\n hist[b] += 1;\n if (hist[b] > 3) g[0] = 1;", ""),
        (
            "for (int j = 0; j < 10; j++) { c[j] += v[i]; k += c[j]; }",
            ", int *c, int k",
        ),
        # Two operators on one array.
        ("int b = v[i] & 15;\n hist[b] += 1;\n hist[b] *= 2;", ""),
        # Reached through another name, which may point to either array.
        (
            "int b = v[i] & 15;\n int *q = b ? hist : g;\n hist[b] += 1;\n q[b] += 1;",
            "",
        ),
        # A call that could read the array.
        ("int b = v[i] & 15;\n g[b] += 1;\n use(b);", ""),
        # The inner loop changes its own variable.
        ("for (int j = 0; j < 10; j++) { c[j] += 1; j += v[i]; }", ", int *restrict c"),
        # min/max of floating values: NaN is the scalar rules' business.
        ("for (int j = 0; j < 8; j++) col[j] = col[j] > w[i] ? col[j] : w[i];", ""),
    ],
)
def test_other_updates_are_no_array_reduction(body: str, params: str) -> None:
    facts = _outer(body, params)
    assert not facts.array_reductions
    assert not facts.parallel


@pytest.mark.parametrize(
    ("body", "bound"),
    [
        # At n == 0 the serial loop touches nothing, the clause adds into c[0:10].
        ("for (int j = 0; j < 10; j++) c[j] += v[i];", "n"),
        # Under a condition the serial loop may touch none of it.
        ("for (int j = 0; j < 10; j++) if (v[i] > j) c[j] += 1;", "100"),
    ],
)
def test_a_pointer_section_the_serial_loop_may_not_touch_is_refused(
    body: str, bound: str
) -> None:
    facts = _outer(body, ", int *restrict c", bound=bound)
    assert not facts.array_reductions
    assert not facts.parallel


def test_a_loop_bounded_by_a_macro_surely_runs() -> None:
    body = "for (int j = 0; j < 4; j++) c[j] += v[i];"
    facts = _outer(body, ", int *restrict c", bound="NB")
    assert [r.section for r in facts.array_reductions] == ["[0:4]"]


def test_an_unbounded_data_index_keeps_its_atomic() -> None:
    facts = _outer("c[v[i] & 15] += 1;", ", int *restrict c")
    assert not facts.array_reductions
    assert [r.name for r in facts.atomics] == ["c"]


def test_a_pointer_that_may_overlap_what_the_loop_reads_is_refused() -> None:
    facts = _outer("for (int j = 0; j < 10; j++) c[j] += d[i];", ", int *c, int *d")
    assert not facts.parallel
    assert any(o.code == ObstacleCode.ALIAS for o in facts.obstacles)


def test_openacc_keeps_its_answer() -> None:
    # gcc 12 fails with an internal error on `acc parallel loop reduction(+:h)`.
    facts = _outer("int b = v[i] & 15;\n hist[b] += 1;", dialect="acc")
    assert not facts.array_reductions
    assert not facts.parallel


def test_a_large_array_gets_no_private_copies() -> None:
    text = (
        "int big[1 << 20];\nvoid f(int n, const int *restrict v) {\n"
        "  for (int i = 0; i < n; i++) {\n    int b = v[i] & 15;\n    big[b] += 1;\n"
        "  }\n}\n"
    )
    facts = analyze_text(text, options=AnalysisOptions(dialect="omp")).facts[0]
    assert not facts.array_reductions


BIG_BINS = (
    "int f(int n, const int *restrict v) {\n  int hist[2048] = {0};\n"
    "  for (int i = 0; i < n; i++) {\n    int b = v[i] & 2047;\n    hist[b] += 1;\n"
    "  }\n  return hist[1];\n}\n"
)


@pytest.mark.parametrize(
    ("target", "pragma"),
    [
        (Target.CPU, "#pragma omp parallel for reduction(+:hist)"),
        (Target.GPU, None),  # 2048 elements for every device thread
    ],
)
def test_an_offloaded_reduction_copies_only_small_arrays(
    target: Target, pragma: str | None
) -> None:
    analysis = analyze_text(BIG_BINS, options=AnalysisOptions(dialect="omp"))
    (found,) = suggest_file(analysis, SuggestOptions(Dialect.OPENMP, target))
    shown = found.pragma.render() if found.pragma else None
    if pragma is None:
        assert shown is None
        assert any("private copy of its 2048 elements" in r for r in found.reasons)
    else:
        assert shown is not None
        assert shown.startswith(pragma), shown


BINNED = """\
double *gp;
double g2[16];
static int bin(double x) { int b = (int)(x * 16.0); return b < 0 ? 0 : b & 15; }
static int peek(double x) { return ((int)gp[0] + (int)x) & 15; }
static int peek2(double x) { return ((int)g2[0] + (int)x) & 15; }
double f(int n, const double *restrict x, const double *restrict w, int leak) {
  double hist[16] = {0};
  LEAK
  for (int i = 0; i < n; i++) {
    int b = CALL(x[i]);
    ARR[b] += w[i];
  }
  return hist[3] + g2[3];
}
"""


@pytest.mark.parametrize(
    ("call", "array", "leak", "reduced"),
    [
        # A pure function of the file; no other name reaches `hist`.
        ("bin", "hist", "", True),
        ("bin", "hist", "if (leak) gp = hist;", False),  # `gp` may reach it
        ("peek", "hist", "if (leak) gp = hist;", False),  # reads it through `gp`
        ("peek2", "g2", "", False),  # reads the global array itself
    ],
)
def test_a_pure_call_may_compute_the_bin_of_an_array_no_other_name_reaches(
    call: str, array: str, leak: str, reduced: bool
) -> None:
    text = BINNED.replace("CALL", call).replace("ARR", array).replace("LEAK", leak)
    facts = analyze_text(text, options=AnalysisOptions(dialect="omp")).facts[0]
    assert bool(facts.array_reductions) is reduced
    assert facts.parallel is reduced
