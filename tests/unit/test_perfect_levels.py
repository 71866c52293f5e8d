"""OpenACC perfect nests: a pragma per level, `collapse` only for a short level."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text

Need = Callable[[str], str]

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)

SUM = """\
#define N 1024
double total(int n, int m, double a[N][N], double b[N][N]) {
  double sum = 0.0, t;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      t = a[i][j] * b[i][j];
      sum += t * t;
    }
  return sum;
}
"""
SHORT = """\
#define C 4
#define N 1024
void scale(int m, double a[C][N], double b[C][N]) {
  for (int c = 0; c < C; c++)
    for (int j = 0; j < m; j++)
      a[c][j] = 2.0 * b[c][j];
}
"""

UNDER_WORKER = """\
void fill(int p, int n, int m, double a[64][64][64], double b[64][64][64]) {
  #pragma acc parallel loop gang
  for (int k = 0; k < p; k++)
    #pragma acc loop worker
    for (int i = 0; i < n; i++) {
      a[k][i][0] = 0.0;
      for (int j = 0; j < m; j++)
        for (int l = 0; l < m; l++)
          b[k][j][l] = 2.0 * a[k][j][l];
    }
}
"""


def _found(text: str) -> tuple[Suggestion, ...]:
    analysis = analyze_text(dedent(text), options=AnalysisOptions(dialect="acc"))
    return tuple(s for s in suggest_file(analysis, ACC, regions=False) if s.pragma)


def _clauses(s: Suggestion) -> set[str]:
    assert s.pragma is not None
    return {f"{c.name}({c.args})" if c.args else c.name for c in s.pragma.clauses}


def test_each_level_carries_its_reduction_and_private_scalar() -> None:
    outer, inner = _found(SUM)
    assert outer.collapsed == ()
    assert {"reduction(+:sum)", "private(t)"} <= _clauses(outer)
    assert {"reduction(+:sum)", "private(t)"} <= _clauses(inner)
    assert inner.inner
    assert inner.pragma is not None
    assert inner.pragma.directive == "loop"


def test_a_short_outer_level_collapses_and_names_the_short_loop() -> None:
    (outer,) = _found(SHORT)
    assert outer.pragma is not None
    clause = outer.pragma.clause("collapse")
    assert clause is not None
    assert clause.args == "2"
    assert any("since `c` runs 4 times" in r for r in outer.reasons)


def test_under_a_users_worker_loop_the_vector_level_folds_the_nest() -> None:
    # Only the vector level is left below `worker`: one pragma folds both loops.
    (vector,) = (s for s in _found(UNDER_WORKER) if s.existing is None)
    assert vector.pragma is not None
    assert vector.pragma.render() == "#pragma acc loop collapse(2) vector"


def test_the_per_level_nest_compiles(tmp_path: Path, need: Need) -> None:
    gcc = need("gcc")
    analysis = analyze_text(SUM, options=AnalysisOptions(dialect="acc"))
    annotated = annotate_text(SUM, suggest_file(analysis, ACC, regions=False))
    assert annotated.count("#pragma acc") == 2
    path = tmp_path / "sum.c"
    path.write_text(annotated)
    done = subprocess.run(
        [gcc, "-fopenacc", "-fsyntax-only", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
