"""The cost model: work per loop execution, and whether a pragma pays off."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import accls.cli.commands
import pytest
from accls.analysis import AnalysisOptions, FileAnalysis, analyze_text
from accls.analysis.cost import REGION_UNITS, Estimate, estimate_loop
from accls.analysis.program import ProgramSummaries

SIZES = textwrap.dedent(
    """\
    #define N 4000
    #define M 5
    double a[N][N], b[N], hdr[2048];
    void kernels(int n, double *y) {
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          a[i][j] = a[i][j] * 0.5 + 1.0;
      for (int m = 0; m < M; m++) b[m] = 0.0;
      for (int h = 0; h < 2048; h++) hdr[h] = 0.0;
      for (int i = 0; i < n; i++) y[i] = y[i] + 1.0;
      for (int i = 0; i < N; i++)
        for (int j = i; j < N; j++)
          a[i][j] = 0.0;
    }
    """
)


def _analysis(text: str) -> FileAnalysis:
    return analyze_text(text, options=AnalysisOptions(dialect="omp"))


def _by_line(text: str, offload: bool = False) -> dict[int, Estimate]:
    analysis = _analysis(text)
    return {
        loop.line: estimate_loop(analysis, loop, offload)
        for loop in analysis.source.loops()
    }


def test_work_counts_accesses_flops_and_iterations() -> None:
    found = _by_line(SIZES)
    # a[i][j] read and written, `*` and `+`, and the j loop's control: 5 per element.
    assert found[5].units == 4000 * 4000 * 5 + 4000
    assert found[5].profitable is True
    assert found[8].units == 5 * 2
    assert found[8].profitable is False
    assert found[8].why == "small loop: likely slower in parallel"


def test_a_header_initialisation_is_too_small() -> None:
    found = _by_line(SIZES)
    assert found[9].units is not None
    assert found[9].units < REGION_UNITS
    assert found[9].profitable is False


def test_unknown_sizes_never_make_a_loop_unprofitable() -> None:
    found = _by_line(SIZES)
    assert found[10].profitable is None
    assert found[10].units is None
    assert "worth it from `n`" in found[10].summary


def test_a_triangular_nest_stays_unknown_not_low() -> None:
    found = _by_line(SIZES)
    assert found[11].profitable is None
    assert any("line 12" in a for a in found[11].assumptions)


def test_offload_needs_more_work_and_iterations() -> None:
    cpu, gpu = _by_line(SIZES)[9], _by_line(SIZES, offload=True)[9]
    assert cpu.profitable is False
    assert gpu.profitable is False
    big = _by_line(SIZES, offload=True)[5]
    assert big.profitable is True
    assert big.iterations == 4000


CALLEE = textwrap.dedent(
    """\
    #define N 4000
    static void scale(double *x, int n) {
      for (int k = 0; k < n; k++) x[k] = x[k] * 2.0;
    }
    void outer(double *rows[N]) {
      for (int i = 0; i < N; i++) scale(rows[i], N);
      for (int i = 0; i < 3; i++) scale(rows[i], 2);
    }
    """
)


def test_a_callee_weighs_its_loops_with_the_call_arguments() -> None:
    found = _by_line(CALLEE)
    # scale(rows[i], N): 3 units per k (`x[k] = x[k] * 2.0` is the one update
    # `x[k] *= 2.0`), N of them, plus the call; per i.
    per_call = 3 * 4000 + 10
    assert found[6].units == 4000 * (per_call + 1 + 1)
    assert found[7].units == 3 * (3 * 2 + 10 + 1 + 1)
    assert found[7].profitable is False


NESTED = textwrap.dedent(
    """\
    static double norm(int n, const double *x) {
      double s = 0.0;
      for (int k = 0; k < n; k++) s += x[k] * x[k];
      return s;
    }
    void rows(int n, double *restrict out, const double *restrict x) {
      for (int i = 0; i < n; i++)
        out[i] = norm(n, x + i * n);
    }
    void columns(int n, double *out, const double *x) {
      #pragma omp parallel for
      for (int j = 0; j < n; j++)
        out[j] = norm(n, x + j);
    }
    """
)


def _norm_estimate(text: str) -> Estimate:
    analysis = _analysis(text)
    loop = next(lp for lp in analysis.source.loops() if lp.var == "k")
    return estimate_loop(analysis, loop, offload=False)


def test_a_function_only_called_from_parallel_code_gets_no_nested_region() -> None:
    # rows' loop is proved parallel (it gets its own pragma: `norm()` reads `x`,
    # which `restrict` keeps apart from `out`); columns' has one.
    estimate = _norm_estimate(NESTED)
    assert estimate.profitable is False
    assert "only called from inside parallel code (line 7, 12)" in estimate.why
    assert "nested region" in estimate.why


def test_a_function_other_files_may_call_is_not_assumed_nested() -> None:
    estimate = _norm_estimate(NESTED.replace("static double norm", "double norm"))
    assert "nested region" not in estimate.why
    # Both calls the file shows are one per row or column: a per-item function
    # (cost_pieces), which needs no proof that other files never call it.
    assert estimate.why.startswith("per-item function: `norm()`")


def _program_estimate(program: ProgramSummaries) -> Estimate:
    text = NESTED.replace("static double norm", "double norm")
    analysis = analyze_text(
        text, options=AnalysisOptions(dialect="omp", program=program)
    )
    loop = next(lp for lp in analysis.source.loops() if lp.var == "k")
    return estimate_loop(analysis, loop, offload=False)


def test_an_index_of_every_file_shows_no_other_caller() -> None:
    alone = _program_estimate(ProgramSummaries(whole=True, called=frozenset({"rows"})))
    assert alone.profitable is False
    assert "only called from inside parallel code (line 7, 12)" in alone.why


def test_another_file_calling_it_or_an_unfinished_index_keeps_it() -> None:
    called = ProgramSummaries(whole=True, called=frozenset({"norm"}))
    assert _program_estimate(called).profitable is None
    pending = ProgramSummaries(whole=True, complete=False)
    assert "nested region" not in _program_estimate(pending).why
    partial = ProgramSummaries(whole=False)
    assert "nested region" not in _program_estimate(partial).why


def test_a_serial_caller_that_does_not_walk_data_keeps_the_callee_loop() -> None:
    # A repeat of the whole vector per iteration: the parallelism is in `norm`.
    serial = NESTED.replace("out[i] = norm(n, x + i * n);", "out[0] += norm(n, x);")
    serial = serial.replace("out[j] = norm(n, x + j);", "out[0] = norm(n, x);")
    estimate = _norm_estimate(serial)
    assert estimate.profitable is None
    assert estimate.why == ""


def test_a_serial_caller_walking_rows_makes_a_per_item_function() -> None:
    serial = NESTED.replace("out[i] = norm(n, x + i * n);", "out[0] += norm(n, x + i);")
    estimate = _norm_estimate(serial)
    assert estimate.profitable is False
    assert estimate.why.startswith("per-item function: `norm()`")


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = accls.cli.commands.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_annotate_leaves_out_unprofitable_pragmas_unless_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "sizes.c"
    src.write_text(SIZES, encoding="utf-8")
    base = ["annotate", "--no-validate", "--model", "openmp", "--target", "cpu"]
    code, out, err = _cli([*base, str(src)], capsys)
    assert code == 0
    assert out.count("#pragma omp parallel for") == 3  # lines 5, 10 and 11
    assert "2 pragma(s) left out as unlikely to pay off (--all inserts them)" in err
    code, out, _ = _cli([*base, "--all", str(src)], capsys)
    assert code == 0
    assert out.count("#pragma omp parallel for") == 5


def test_json_has_the_estimate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "sizes.c"
    src.write_text(SIZES, encoding="utf-8")
    argv = ["suggest", "--no-validate", "--format", "json", "--model", "openmp"]
    code, out, _ = _cli([*argv, str(src)], capsys)
    assert code == 0
    by_line = {o["line"]: o for o in json.loads(out)}
    assert by_line[8]["profitable"] is False
    assert by_line[8]["estimate"]["units"] == 10
    assert by_line[5]["profitable"] is True
    assert by_line[10]["profitable"] is None
    assert by_line[6]["estimate"] is None  # collapsed into line 5's pragma


def test_the_verdict_says_not_worth_it_from_the_estimate() -> None:
    from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
    from accls.suggest.verdict import Verdict, decide, short_title

    analysis = _analysis(SIZES)
    found = {
        s.loop.line: s
        for s in suggest_file(
            analysis, SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
        )
    }
    header = found[9]
    estimate = estimate_loop(analysis, header.loop, offload=False)
    decision = decide(header.facts, header, estimate=estimate)
    assert decision.verdict is Verdict.SMALL
    assert decision.cost == "small loop: likely slower in parallel"
    assert short_title(decision, header.facts) == "parallel · not worth it (small loop)"
    big = found[5]
    decided = decide(
        big.facts, big, estimate=estimate_loop(analysis, big.loop, offload=False)
    )
    assert decided.verdict is Verdict.PARALLEL
    assert decided.estimate == "≈ 8.0·10^7 work units per execution"


def _weights(path: Path, bias: float) -> Path:
    """A weights file whose only non-zero weight is the bias: every loop alike."""
    from accls.analysis.cost_weights import FEATURE_NAMES

    coefficients = [bias] + [0.0] * (len(FEATURE_NAMES) - 1)
    path.write_text(
        json.dumps(
            {
                "features": list(FEATURE_NAMES),
                "coefficients": coefficients,
                "threshold": 0.0,
                "threads": 2,
            }
        )
    )
    return path


def test_fitted_weights_decide_loops_of_known_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACCLS_PERF_WEIGHTS", str(_weights(tmp_path / "no.json", -1)))
    never = _by_line(SIZES)
    assert never[5].profitable is False  # 8·10^7 units, yet these weights say no
    assert (
        never[5].why == "small loop: likely slower in parallel (fitted to measurements)"
    )
    assert never[5].predicted == -1.0
    assert never[10].profitable is None  # unknown sizes: the weights never decide
    monkeypatch.setenv("ACCLS_PERF_WEIGHTS", str(_weights(tmp_path / "yes.json", 1)))
    always = _by_line(SIZES)
    assert always[8].profitable is True  # 10 units, yet these weights say yes
    assert always[8].features is not None
    assert always[8].features.units == 10
    assert always[8].as_json()["predicted_log2_speedup"] == 1.0
    # Offload keeps the constants: the weights are fitted to CPU threads.
    assert _by_line(SIZES, offload=True)[8].profitable is False


def test_without_readable_weights_the_constants_decide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"features": ["bias"], "coefficients": [5.0]}))
    for setting in ("none", str(tmp_path / "missing.json"), str(other)):
        monkeypatch.setenv("ACCLS_PERF_WEIGHTS", setting)
        found = _by_line(SIZES)
        assert found[8].why == "small loop: likely slower in parallel"
        assert found[5].profitable is True
        assert found[5].predicted is None


HISTOGRAM = textwrap.dedent(
    """\
    #include <math.h>
    void count(int n, const int *bin, int *hist, const double *x, double *y) {
      for (int i = 0; i < n; i++)
        hist[bin[i]]++;
      for (int i = 0; i < n; i++) {
        double v = x[i];
        for (int k = 0; k < 40; k++)
          v = v * 0.5 + sqrt(v + 1.0);
        y[i] = v;
        hist[bin[i]] += 1;
      }
    }
    """
)


def test_a_histogram_loop_is_atomic_bound() -> None:
    found = _by_line(HISTOGRAM)
    assert found[3].profitable is False
    assert found[3].why.startswith("atomic-bound loop: about ")
    assert "atomic updates of `hist`" in found[3].why


def test_enough_work_beside_the_atomic_update_keeps_the_loop() -> None:
    found = _by_line(HISTOGRAM)
    assert found[5].profitable is None  # n unknown; 40 inner steps of work
    assert not found[5].why
    assert _by_line(HISTOGRAM, offload=True)[3].why.startswith("atomic") is False


EXTENTS = textwrap.dedent(
    """\
    #define NMAX 64
    double table[1 << 20];
    void jump(int k, const double *a, double *out, double p[NMAX], int m) {
      int bits[NMAX];
      double s = 1.0;
      for (int i = 0; i < k; i++) bits[i] = i & 1;
      for (int i = 0; i < k; i++) if (bits[i]) s *= a[i];
      out[0] = s;
      for (int i = 0; i < k; i++) table[i] = a[i] * 2.0;
      for (int i = 0; i < k; i++) p[i] = a[i];
      for (int i = 0; i < k; i++) out[i] = bits[i + m];
    }
    """
)


def test_a_declared_extent_bounds_an_open_trip_count() -> None:
    found = _by_line(EXTENTS)
    assert found[6].profitable is False
    assert found[6].why.startswith(
        "small loop: at most 64 iterations (`bits` has 64 elements)"
    )
    assert found[7].profitable is False


def test_large_extents_parameters_and_shifted_subscripts_bound_nothing() -> None:
    found = _by_line(EXTENTS)
    assert found[9].profitable is None  # 2^20 elements: it may pay
    assert found[10].profitable is None  # `p[NMAX]` is a pointer parameter
    assert found[11].profitable is None  # `bits[i + m]`: m shifts it


LIGHT = textwrap.dedent(
    """\
    void setup(int n, int *idx, double *restrict a, double *restrict b,
               double *restrict c, double s) {
      for (int i = 0; i < n; i++) idx[i] = i - 1;
      for (int j = 0; j < n; j++) {
        a[j] = 0.0;
        b[j] = 2.0;
      }
      for (int j = 0; j < n; j++) c[j] = a[j] + s * b[j];
      double sum = 0.0;
      for (int j = 0; j < n; j++) sum += c[j];
      a[0] = sum + idx[n - 1];
    }
    """
)


def test_a_light_fill_no_parallel_loop_uses_is_setup_code() -> None:
    found = _by_line(LIGHT)
    assert found[3].profitable is False
    assert found[3].why.startswith("light loop: about 2 work units per iteration")
    assert "filling `idx`" in found[3].why


def test_a_fill_a_parallel_loop_uses_and_a_reduction_keep_their_pragma() -> None:
    found = _by_line(LIGHT)
    assert found[4].profitable is None  # first touch of `a`, `b`: loop 8 uses them
    assert found[8].profitable is None  # it reads memory: not a fill
    assert found[10].profitable is None  # a reduction writes no array


SERIAL_BOUND = textwrap.dedent(
    """\
    void spmv(int n, int w, int steps, const int *col, const double *m,
              double *restrict v, double *restrict out) {
      for (int it = 0; it < steps; it++) {
        for (int r = 0; r < n; r++) v[r] += (double)(r + 1);
        for (int r = 0; r < n; r++) {
          double t = 0.0;
          for (int k = r * w; k < (r + 1) * w; k++) t += m[k] * v[col[k]];
          out[r + 1] += out[r] * t;
        }
      }
      for (int it = 0; it < steps; it++) {
        for (int r = 0; r < n; r++) v[r] = v[r] * 0.5;
        for (int r = 0; r < n; r++) out[r] = out[r] + v[r];
        v[0] = out[n - 1];
      }
    }
    """
)


def test_a_small_parallel_part_of_a_serial_iteration_is_serial_bound() -> None:
    found = _by_line(SERIAL_BOUND)
    assert found[4].profitable is False
    assert found[4].why.startswith("serial-bound: the parallel loops hold ")
    assert "iteration of the loop at line 3" in found[4].why


def test_parallel_loops_that_hold_the_iteration_keep_their_pragma() -> None:
    found = _by_line(SERIAL_BOUND)
    assert found[12].profitable is None
    assert found[13].profitable is None


def test_json_work_is_null_when_a_trip_count_is_unknown() -> None:
    text = SIZES + textwrap.dedent(
        """\
        void walk(double *x, int *next, int head) {
          for (int p = head; p >= 0; p = next[p]) x[p] = 0.0;
        }
        """
    )
    found = _by_line(text)
    # `j = i .. N` is triangular: the nest's work is not a number, whatever the outer.
    assert found[11].as_json()["work"] is None
    assert found[16].as_json()["work"] is None  # a linked walk has no trip count
    # An open size stays symbolic: honest, and not null.
    work = found[10].work
    assert work is not None
    assert work.names() == {"n"}
    assert found[10].as_json()["work"] == work.render()
