"""Level words by nest shape: a perfect two-level `parallel loop` nest is left bare."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, Gpu, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text

Need = Callable[[str], str]

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)

PERFECT = """\
#define N 512
double a[N][N], b[N][N];
void run(void) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < i; j++)
      b[i][j] = 0.25 * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]);
}
"""
TWO = """\
#define N 512
double a[N][N], b[N][N];
void run(void) {
  for (int i = 1; i < N - 1; i++) {
    double w = 0.25 * i;
    for (int j = 1; j < N - 1; j++)
      b[i][j] = w * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]);
  }
}
"""
THREE = """\
#define N 64
double a[N][N][N], b[N][N][N];
void run(void) {
  for (int i = 0; i < N; i++) {
    a[i][0][0] = 1.0;
    for (int j = 0; j < N; j++) {
      b[i][j][0] = 2.0;
      for (int k = 0; k < N; k++)
        a[i][j][k] = b[i][j][k] * 2.0;
    }
  }
}
"""


def _pragmas(text: str, opts: SuggestOptions = ACC) -> list[str]:
    analysis = analyze_text(
        dedent(text), options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    found = suggest_file(analysis, opts, regions=False)
    return [s.pragma.render().split(" copy")[0] for s in found if s.pragma]


def test_a_perfect_two_level_nest_gets_no_level_words() -> None:
    # Triangular, so not collapsed: a pragma per level, left to the compiler.
    assert _pragmas(PERFECT) == ["#pragma acc parallel loop", "#pragma acc loop"]


def test_an_imperfect_nest_keeps_its_level_words() -> None:
    # Statements between the levels: experts name them, gang over vector.
    assert _pragmas(TWO) == [
        "#pragma acc parallel loop gang",
        "#pragma acc loop vector",
    ]
    # A deeper nest keeps every level named: `worker` says which loop is middle.
    assert _pragmas(THREE) == [
        "#pragma acc parallel loop gang",
        "#pragma acc loop worker",
        "#pragma acc loop vector",
    ]


def test_the_two_level_nest_says_why_it_names_no_level() -> None:
    analysis = analyze_text(PERFECT, options=AnalysisOptions(dialect="acc"))
    outer = suggest_file(analysis, ACC, regions=False)[0]
    assert any(r.startswith("no level words:") for r in outer.reasons)
    assert any(r.startswith("levels: `i` takes `gang`") for r in outer.reasons)
    for text in (TWO, THREE):
        analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
        top = suggest_file(analysis, ACC, regions=False)[0]
        assert not any(r.startswith("no level words:") for r in top.reasons)


def test_kernels_and_gpu_tuning_keep_the_level_words() -> None:
    # `kernels` makes a bare loop `auto`; a tuning sizes the named levels.
    assert _pragmas(PERFECT) == ["#pragma acc parallel loop", "#pragma acc loop"]
    kernels = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU, kernels=True)
    assert _pragmas(PERFECT, kernels) == [
        "#pragma acc kernels loop gang",
        "#pragma acc loop vector",
    ]
    nvidia = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU, gpu=Gpu.NVIDIA)
    got = _pragmas(PERFECT, nvidia)
    assert got[0].startswith("#pragma acc parallel loop gang")
    assert got[1] == "#pragma acc loop vector"


def test_the_bare_two_level_nest_compiles(tmp_path: Path, need: Need) -> None:
    gcc = need("gcc")
    analysis = analyze_text(PERFECT, options=AnalysisOptions(dialect="acc"))
    annotated = annotate_text(PERFECT, suggest_file(analysis, ACC, regions=False))
    assert "#pragma acc loop\n" in annotated
    path = tmp_path / "two.c"
    path.write_text(annotated)
    done = subprocess.run(
        [gcc, "-fopenacc", "-fsyntax-only", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
