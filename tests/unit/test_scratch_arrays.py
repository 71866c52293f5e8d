"""Scratch arrays: a local array each iteration writes before reading is private."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, analyze_text
from accls.analysis.checks import check_file
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

PARAMS = "int n, int m, const double *restrict a, double *restrict b"
ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP_CPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
OMP_GPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)


def _text(body: str) -> str:
    return f"#define M 8\ndouble f({PARAMS}) {{\n{dedent(body)}\n}}\n"


def outer(body: str) -> LoopFacts:
    """The facts of the first loop over `i`."""
    facts = analyze_text(_text(body)).facts
    return next(f for f in facts if f.loop.var == "i")


STAGED = """\
    double t[M];
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < M; k++)
            t[k] = a[i * M + k] * 2.0;
        double s = 0.0;
        for (int k = 0; k < M; k++)
            s += t[k] * t[M - 1 - k];
        b[i] = s;
    }
    return 0.0;
"""


def test_array_filled_before_it_is_read_is_private() -> None:
    facts = outer(STAGED)
    assert facts.private_arrays == ("t",)
    assert facts.parallel
    # The reuse stays listed: a pragma without `private(t)` still races.
    assert any(d.array == "t" for d in facts.dependences)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            """\
            double t[2];
            for (int i = 0; i < n; i++) {
                t[0] = a[i];
                t[1] = t[0] * 2;
                b[i] = t[0] + t[1];
            }
            return 0.0;
            """,
            id="straight-line",
        ),
        pytest.param(
            """\
            double w[3][3];
            for (int i = 0; i < n; i++) {
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++)
                        w[r][c] = a[i] * (r + c);
                b[i] = w[0][0] + w[2][1] * w[1][2];
            }
            return 0.0;
            """,
            id="two-dims",
        ),
        pytest.param(
            """\
            double t[5];
            for (int i = 0; i < n; i++) {
                for (int y = 0; y < 5; y++) t[y] = 0;
                for (int y = 0; y < m; y++) t[y % 5] += a[y];
                b[i] = t[4];
            }
            return 0.0;
            """,
            id="modulo-inside",
        ),
        pytest.param(
            """\
            double t[M];
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < M; k++) t[k] = a[k] + i;
                for (int k = 1; k < M; k++) b[i * M + k] = t[k - 1];
            }
            return 0.0;
            """,
            id="shifted-read",
        ),
        pytest.param(
            """\
            double t[M];
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < M; k++) t[k] = a[k] + i;
                b[i] = t[0];
            }
            for (int k = 0; k < M; k++) t[k] = 1.0;
            return t[2];
            """,
            id="rewritten-after",
        ),
        pytest.param(
            """\
            double t[M];
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < M; k++) t[k] = a[k] + i;
                b[i] = t[0];
            }
            double s = 0.0;
            for (int x = 0; x < m; x++) {
                for (int k = 0; k < M; k++) t[k] = a[k] * x;
                s += t[M - 1];
            }
            return s;
            """,
            id="rewritten-in-a-later-loop",
        ),
    ],
)
def test_covered_scratch_is_private(body: str) -> None:
    facts = outer(body)
    assert facts.private_arrays in {("t",), ("w",)}
    assert facts.parallel


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            """\
            double t[M];
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < M - 1; k++) t[k] = a[k] + i;
                b[i] = t[M - 1];
            }
            return 0.0;
            """,
            id="element-not-written",
        ),
        pytest.param(
            """\
            double t[M];
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < M; k++) t[k] = a[k] + i;
                b[i] = t[0];
            }
            return t[1];
            """,
            id="read-after-the-loop",
        ),
        pytest.param(
            """\
            double t[2] = {0.0, 0.0};
            for (int i = 0; i < n; i++) {
                t[0] = t[0] + a[i];
                b[i] = t[0];
            }
            return 0.0;
            """,
            id="running-value",
        ),
        pytest.param(
            """\
            double t[M];
            for (int i = 0; i < n; i++) {
                if (a[i] > 0)
                    for (int k = 0; k < M; k++) t[k] = a[k] + i;
                b[i] = t[0];
            }
            return 0.0;
            """,
            id="conditional-fill",
        ),
        pytest.param(
            """\
            double t[M];
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < m; k++) t[k] = a[k] + i;
                b[i] = t[0];
            }
            return 0.0;
            """,
            id="fill-may-be-empty",
        ),
        pytest.param(
            """\
            double t[M];
            for (int r = 0; r < 3; r++) {
                b[r] += t[r];
                for (int i = 0; i < n; i++) {
                    for (int k = 0; k < M; k++) t[k] = a[k] + i;
                    b[i] = t[0];
                }
            }
            return 0.0;
            """,
            id="read-again-around",
        ),
        pytest.param(
            """\
            double t[M];
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < M; k++) t[k] = a[k] + i;
                b[i] = use(t);
            }
            return 0.0;
            """,
            id="address-passed",
        ),
        pytest.param(
            """\
            double t[100000];
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < 100000; k++) t[k] = a[k] + i;
                b[i] = t[0];
            }
            return 0.0;
            """,
            id="too-large-to-copy",
        ),
        pytest.param(
            """\
            double t[M];
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < M; k++) t[k] = a[k] + i;
                b[i] = t[0];
            }
            for (int k = 0; k < M - 1; k++) t[k] = 1.0;
            return t[M - 1];
            """,
            id="rewritten-after-in-part",
        ),
        pytest.param(
            """\
            double t[M];
            for (int r = 0; r < 3; r++) {
                for (int i = 0; i < n; i++) {
                    for (int k = 0; k < M; k++) t[k] = a[k] + i;
                    b[i] = t[0];
                }
                if (m > r) break;
                for (int k = 0; k < M; k++) t[k] = 1.0;
            }
            return t[2];
            """,
            id="rewrite-skipped-by-break",
        ),
    ],
)
def test_uncovered_scratch_is_refused(body: str) -> None:
    facts = outer(body)
    assert facts.private_arrays == ()
    assert not facts.parallel


def _pragma(opts: SuggestOptions) -> str | None:
    analysis = analyze_text(_text(STAGED), options=AnalysisOptions())
    found = [s for s in suggest_file(analysis, opts) if s.loop.var == "i"]
    pragma = found[0].pragma
    return pragma.render() if pragma is not None else None


def test_suggestions_privatize_the_scratch_and_move_nothing_of_it() -> None:
    acc = _pragma(ACC)
    assert acc is not None
    assert "private(t)" in acc
    assert "copy(t" not in acc
    assert "copyin(t" not in acc
    cpu = _pragma(OMP_CPU)
    assert cpu is not None
    assert cpu.startswith("#pragma omp parallel for")
    assert "private(t)" in cpu
    gpu = _pragma(OMP_GPU)
    assert gpu is not None
    assert "private(t)" in gpu
    assert "map(tofrom: t" not in gpu


CHECKED = """\
void f(int n, const double *restrict a, double *restrict b) {{
  double t[2];
  t[0] = 0.0;
  {pragma}
  for (int i = 0; i < n; i++) {{
    {body}
  }}
}}
"""
FILL = "t[0] = a[i]; t[1] = t[0] * 2; b[i] = t[0] + t[1];"
RUNNING = "b[i] = t[0] + a[i]; t[0] = a[i]; t[1] = 2;"


@pytest.mark.parametrize(
    ("pragma", "body", "codes"),
    [
        ("#pragma omp parallel for private(t)", FILL, set()),
        ("#pragma acc parallel loop private(t[0:2])", FILL, set()),
        ("#pragma omp parallel for", FILL, {"ACC101"}),
        ("#pragma omp parallel for private(t)", RUNNING, {"ACC112"}),
        ("#pragma acc parallel loop private(t)", RUNNING, {"ACC112"}),
    ],
)
def test_check_agrees_with_the_privatization(
    pragma: str, body: str, codes: set[str]
) -> None:
    text = CHECKED.format(pragma=pragma, body=body)
    found = {f.code for f in check_file(text, "t.c")}
    assert found & {"ACC101", "ACC112"} == codes
