"""Reductions below two parallel levels run in each vector lane: `loop seq`."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, Gpu, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text

Need = Callable[[str], str]

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)

# The textbook product: the perfect `i`, `j` pair over the dot product `k`.
MATMUL = """\
#define N 512
double a[N][N], b[N][N], c[N][N];
void run(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = 0.0;
      for (int k = 0; k < N; k++)
        s += a[i][k] * b[k][j];
      c[i][j] = s;
    }
}
"""
# Statements between `i` and `j`: the levels keep their words.
IMPERFECT = """\
#define N 512
double a[N][N], b[N][N], c[N][N], d[N];
void run(void) {
  for (int i = 0; i < N; i++) {
    d[i] = 0.5 * i;
    for (int j = 0; j < N; j++) {
      double s = d[i];
      for (int k = 0; k < N; k++)
        s += a[i][k] * b[k][j];
      c[i][j] = s;
    }
  }
}
"""
# One parallel loop above the reduction: the lanes share each row's sum.
ROWS = """\
#define N 512
double m[N][N], v[N], out[N];
void run(void) {
  for (int i = 0; i < N; i++) {
    double s = 0.0;
    for (int k = 0; k < N; k++)
      s += m[i][k] * v[k];
    out[i] = s;
  }
}
"""
# Three columns would leave most lanes idle: `j` stays the worker level.
NARROW = """\
#define N 512
double a[N][N], b[N][3], c[N][3];
void run(void) {
  for (int i = 0; i < N; i++) {
    c[i][0] = 0.0;
    for (int j = 0; j < 3; j++) {
      double s = 0.0;
      for (int k = 0; k < N; k++)
        s += a[i][k] * b[k][j];
      c[i][j] = s;
    }
  }
}
"""


def _suggestions(text: str, opts: SuggestOptions = ACC) -> list[Suggestion]:
    analysis = analyze_text(
        dedent(text), options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    found = suggest_file(analysis, opts, regions=False)
    return [s for s in found if s.pragma is not None]


def _pragmas(text: str, opts: SuggestOptions = ACC) -> list[str]:
    found = _suggestions(text, opts)
    return [s.pragma.render().split(" copy")[0] for s in found if s.pragma]


def test_a_reduction_below_two_parallel_loops_runs_in_each_lane() -> None:
    # `i` and `j` are a perfect pair: their words go (level_words), `k` is seq.
    assert _pragmas(MATMUL) == [
        "#pragma acc parallel loop",
        "#pragma acc loop",
        "#pragma acc loop seq",
    ]


def test_an_imperfect_nest_names_gang_and_vector_over_the_lane_reduction() -> None:
    assert _pragmas(IMPERFECT) == [
        "#pragma acc parallel loop gang",
        "#pragma acc loop vector",
        "#pragma acc loop seq",
    ]


def test_the_middle_loop_and_the_seq_loop_say_why() -> None:
    found = _suggestions(IMPERFECT)
    assert any(r.startswith("levels: `j` takes `vector`") for r in found[1].reasons)
    assert found[2].reasons[0].startswith("loop seq: the loops above fill the gangs")
    assert "`s`" in found[2].reasons[0]


def test_a_reduction_right_below_the_gang_loop_keeps_the_vector_lanes() -> None:
    assert _pragmas(ROWS) == [
        "#pragma acc parallel loop gang",
        "#pragma acc loop vector reduction(+:s)",
    ]


def test_a_middle_loop_of_few_iterations_keeps_the_worker_level() -> None:
    assert _pragmas(NARROW) == [
        "#pragma acc parallel loop gang",
        "#pragma acc loop worker",
        "#pragma acc loop vector reduction(+:s)",
    ]


def test_the_gpu_tuning_sizes_the_vector_level_alone() -> None:
    # No worker loop is left, so no `num_workers`: one vector of 128 per gang.
    nvidia = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU, gpu=Gpu.NVIDIA)
    top = _pragmas(IMPERFECT, nvidia)[0]
    assert "vector_length(128)" in top
    assert "num_workers" not in top


def test_openmp_offload_is_unchanged() -> None:
    omp = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)
    assert not any("seq" in p for p in _pragmas(IMPERFECT, omp))


def test_the_lane_reduction_nest_compiles_and_runs(tmp_path: Path, need: Need) -> None:
    gcc = need("gcc")
    text = dedent(MATMUL) + dedent(
        """\
        #include <stdio.h>
        int main(void) {
          for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
              a[i][j] = (i * 7 + j * 3) % 13;
              b[i][j] = (i * 5 + j * 11) % 17;
            }
          run();
          double t = 0.0;
          for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
              t += c[i][j] * ((i + j) % 5);
          printf("%.1f\\n", t);
          return 0;
        }
        """
    )
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    annotated = annotate_text(text, suggest_file(analysis, ACC, regions=False))
    assert "#pragma acc loop seq\n" in annotated
    outputs = []
    for name, source, flags in (
        ("serial", text, []),
        ("acc", annotated, ["-fopenacc"]),
    ):
        path = tmp_path / f"{name}.c"
        path.write_text(source)
        exe = tmp_path / name
        subprocess.run(
            [gcc, "-O1", *flags, str(path), "-o", str(exe)],
            capture_output=True,
            text=True,
            check=True,
        )
        done = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
