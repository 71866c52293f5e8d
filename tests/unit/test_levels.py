"""A nest mapped onto gang/worker/vector, `loop seq`, OpenMP teams, and GPU tuning."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.cli.options import gpu_choice
from accls.settings import parse_settings
from accls.suggest import Dialect, Gpu, Suggestion, SuggestOptions, Target, suggest_file
from accls.validation.offload import offload_check

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP_GPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)
OMP_CPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)

IMPERFECT = """\
#define N 512
double a[N][N], b[N][N], c[N];
void run(void) {
  for (int i = 0; i < N; i++) {
    double s = 0.0;
    for (int k = 1; k < N; k++) {
      b[i][k] = b[i][k-1] * 0.5;
      for (int j = 0; j < N; j++)
        s += a[k][j];
    }
    c[i] = s;
  }
}
"""
STENCIL = """\
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
PERFECT = """\
#define N 512
double a[N][N], b[N][N];
void run(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = b[i][j];
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


def _pragmas(text: str, opts: SuggestOptions) -> list[tuple[int, str | None]]:
    analysis = analyze_text(
        dedent(text), options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    return [
        (s.loop.line, s.pragma.render() if s.pragma else None)
        for s in suggest_file(analysis, opts, regions=False)
    ]


def _suggestions(text: str, opts: SuggestOptions) -> tuple[Suggestion, ...]:
    analysis = analyze_text(
        text, options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    return suggest_file(analysis, opts, regions=False)


def test_acc_imperfect_nest_gets_a_pragma_per_level_and_loop_seq() -> None:
    # Imperfect: the levels are named, as experts write them (level_words.py).
    assert _pragmas(IMPERFECT, ACC) == [
        (4, "#pragma acc parallel loop gang copy(b) copyin(a) copyout(c)"),
        (6, "#pragma acc loop seq"),
        (8, "#pragma acc loop vector reduction(+:s)"),
    ]
    outer = _suggestions(IMPERFECT, ACC)[0]
    assert any(r.startswith("levels: `i` takes `gang`") for r in outer.reasons)
    assert any("imperfect" in r for r in outer.reasons)


def test_omp_offload_imperfect_nest_gets_teams_and_inner_parallel_for() -> None:
    got = _pragmas(STENCIL, OMP_GPU)
    assert got[0][1] is not None
    assert got[0][1].startswith("#pragma omp target teams distribute map(")
    assert got[1] == (6, "#pragma omp parallel for simd")
    reduction = _pragmas(IMPERFECT, OMP_GPU)
    assert reduction[-1] == (8, "#pragma omp parallel for simd reduction(+:s)")


def test_cpu_keeps_one_parallel_for() -> None:
    got = _pragmas(STENCIL, OMP_CPU)
    assert got == [(4, "#pragma omp parallel for")]


def test_perfect_nest_gets_a_pragma_per_level_and_says_why() -> None:
    # 512 gangs and 512 vector lanes fill their levels: no `collapse`.
    assert [p for _, p in _pragmas(PERFECT, ACC)] == [
        "#pragma acc parallel loop copyin(b) copyout(a)",
        "#pragma acc loop",
    ]
    outer = _suggestions(PERFECT, ACC)[0]
    assert any("a perfect nest takes a pragma per level" in r for r in outer.reasons)


def test_three_levels_gang_worker_vector() -> None:
    got = [p for _, p in _pragmas(THREE, ACC)]
    assert got[0] is not None
    assert got[0].startswith("#pragma acc parallel loop gang")
    assert got[1:] == ["#pragma acc loop worker", "#pragma acc loop vector"]


@pytest.mark.parametrize(
    ("gpu", "text", "clause"),
    [
        (Gpu.NVIDIA, STENCIL, "vector_length(128)"),
        (Gpu.AMD, STENCIL, "vector_length(256)"),
        (Gpu.NVIDIA, THREE, "num_workers(4) vector_length(32)"),
        (Gpu.AMD, THREE, "num_workers(4) vector_length(64)"),
    ],
)
def test_gpu_tuning_openacc(gpu: Gpu, text: str, clause: str) -> None:
    opts = SuggestOptions(Dialect.OPENACC, Target.GPU, gpu=gpu)
    top = _pragmas(text, opts)[0][1]
    assert top is not None
    assert clause in top
    assert clause not in str(_pragmas(text, ACC)[0][1])


def test_gpu_tuning_openmp_thread_limit() -> None:
    opts = SuggestOptions(Dialect.OPENMP, Target.GPU, gpu=Gpu.NVIDIA)
    assert "thread_limit(128)" in str(_pragmas(STENCIL, opts)[0][1])
    cpu = SuggestOptions(Dialect.OPENMP, Target.CPU, gpu=Gpu.NVIDIA)
    assert "thread_limit" not in str(_pragmas(STENCIL, cpu)[0][1])


def test_unknown_gpu_setting_falls_back_to_generic() -> None:
    settings, problems = parse_settings({"gpu": "voodoo"})
    assert settings.gpu is Gpu.GENERIC
    assert problems == ["accls.gpu: unknown value 'voodoo'; using the default"]
    settings, problems = parse_settings({"gpu": "AMD"})
    assert settings.gpu is Gpu.AMD
    assert not problems
    assert settings.suggest_options.gpu is Gpu.AMD


def test_unknown_gpu_flag_says_so_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert gpu_choice("voodoo") is Gpu.GENERIC
    assert capsys.readouterr().err.count("names no known GPU") == 1
    assert gpu_choice("nvidia") is Gpu.NVIDIA


def test_offload_check_says_what_it_skipped() -> None:
    assert offload_check("gcc", Dialect.OPENACC, Gpu.GENERIC).skipped is None
    amd = offload_check("nvc", Dialect.OPENACC, Gpu.AMD)
    assert amd.flags == ()
    assert amd.skipped is not None
    assert "NVIDIA" in amd.skipped
    acc = offload_check("clang", Dialect.OPENACC, Gpu.NVIDIA)
    assert acc.skipped is not None
    assert "no OpenACC" in acc.skipped


DEEP = """\
#define N 64
double a[N][N][N][N], b[N][N][N][N], c[N];
void run(void) {
  for (int i = 0; i < N; i++) {
    c[i] = 0.0;
    for (int j = 0; j < N; j++) {
      b[i][j][0][0] = 1.0;
      for (int k = 0; k < N; k++)
        for (int l = 0; l < N; l++)
          a[i][j][k][l] = b[i][j][k][l] * 2.0;
    }
  }
}
"""


def test_the_vector_level_collapses_the_perfect_loops_below_it() -> None:
    # Gang and worker take `i` and `j`; the independent, rectangular `k` and
    # `l` fold into the vector lanes rather than `l` running sequentially.
    found = _suggestions(DEEP, ACC)
    by_line = {s.loop.line: s for s in found}
    assert by_line[8].pragma is not None
    assert by_line[8].pragma.render() == "#pragma acc loop collapse(2) vector"
    assert 9 not in by_line or by_line[9].pragma is None  # folded into line 8
    assert any(r.startswith("collapse(2): loops `k`, `l`") for r in by_line[8].reasons)


def test_a_dependent_loop_below_the_vector_level_is_not_collapsed() -> None:
    text = DEEP.replace("b[i][j][k][l] * 2.0", "a[i][j][k][l - 1] * 2.0").replace(
        "int l = 0", "int l = 1"
    )
    by_line = {s.loop.line: s for s in _suggestions(text, ACC)}
    assert by_line[8].pragma is not None
    assert by_line[8].pragma.clause("collapse") is None


def _nest(depth: int, body: str = "") -> str:
    """A perfect, independent, rectangular nest `depth` loops deep."""
    names = [f"i{k}" for k in range(depth)]
    heads = "".join(f"for (int {v} = 0; {v} < 2; {v}++)\n" for v in names)
    index = "".join(f"[{v}]" for v in names)
    dims = "[2]" * depth
    return (
        f"double a{dims}, b{dims};\nvoid run(void) {{\n{heads}"
        f"  a{index} = {body or f'b{index}'} + 1.0;\n}}\n"
    )


def test_the_vector_level_folds_every_perfect_loop_below_it() -> None:
    # Gang folds three loops, the worker takes one; the six loops left fold
    # into the vector lanes instead of three of them running in each lane.
    found = [s for s in _suggestions(_nest(10), ACC) if s.pragma is not None]
    assert [s.pragma.render().split(" copy")[0] for s in found if s.pragma] == [
        "#pragma acc parallel loop collapse(3) gang",
        "#pragma acc loop worker",
        "#pragma acc loop collapse(6) vector",
    ]


def test_a_deep_nest_says_why_each_level_stops_folding() -> None:
    found = [s for s in _suggestions(_nest(10), ACC) if s.pragma is not None]
    gang = next(r for r in found[0].reasons if r.startswith("levels:"))
    worker = next(r for r in found[1].reasons if r.startswith("levels:"))
    assert gang.endswith("`collapse` folds at most 3 loops on one level")
    assert worker.endswith("folds no other loop: those below fill the vector level")
    for reason in (gang, worker):
        assert "not perfectly nested" not in reason
        assert "depend" not in reason


def test_a_triangular_loop_stops_the_fold_and_says_so() -> None:
    text = _nest(5).replace("i4 < 2", "i4 < i3 + 1")
    found = [s for s in _suggestions(text, ACC) if s.pragma is not None]
    vector = found[-1]
    assert vector.pragma is not None
    assert vector.pragma.clause("collapse") is None
    worker = next(r for r in found[-2].reasons if r.startswith("levels:"))
    assert worker.endswith("folds no other loop: those below fill the vector level")
    gang = next(r for r in found[0].reasons if r.startswith("levels:"))
    assert gang.endswith("`collapse` folds at most 3 loops on one level")


def test_a_dependent_inner_loop_is_named_in_the_levels_reason() -> None:
    text = dedent(
        """\
        double a[64][64][64];
        void run(void) {
          for (int i = 0; i < 64; i++)
            for (int j = 1; j < 64; j++)
              for (int k = 0; k < 64; k++)
                a[i][j][k] = a[i][j - 1][k] + k;
        }
        """
    )
    outer = _suggestions(text, ACC)[0]
    assert outer.pragma is not None
    reason = next(r for r in outer.reasons if r.startswith("levels:"))
    assert reason.endswith("the inner loop `j` is not independent")
