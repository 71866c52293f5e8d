"""Atomic updates: one pragma per statement, above the whole statement."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text
from accls.validation import CompilerSettings, compile_check

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
OMP_GPU = SuggestOptions(dialect=Dialect.OPENMP, target=Target.GPU)
Need = Callable[[str], str]

# A 2-D histogram: both loops are independent once the update is atomic, so the
# outer loop takes gang (teams) and the inner one vector (parallel for).
HISTOGRAM = dedent(
    """\
    #define R 480
    #define C 640
    int h[256];
    unsigned char img[R][C];
    void hist(void) {
      for (int i = 0; i < R; i++) {
        for (int j = 0; j < C; j++) {
          h[img[i][j]] += 1;
        }
      }
    }
    """
)
# The outer loop's own update and the inner loop's are two statements.
TWO_UPDATES = dedent(
    """\
    #define R 480
    #define C 640
    int h[256], g[256];
    unsigned char img[R][C], tag[R];
    void hist(void) {
      for (int i = 0; i < R; i++) {
        g[tag[i]] += 1;
        for (int j = 0; j < C; j++) {
          h[img[i][j]] += 1;
        }
      }
    }
    """
)


def _suggestions(text: str, opts: SuggestOptions) -> tuple[Suggestion, ...]:
    analysis = analyze_text(
        text, options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    return suggest_file(analysis, opts, regions=False)


def _atomic_lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if " atomic" in ln]


def test_a_nest_of_two_levels_writes_the_update_atomic_once() -> None:
    for opts in (ACC, OMP_GPU):
        found = _suggestions(HISTOGRAM, opts)
        assert [s.pragma is not None for s in found] == [True, True]
        assert all(s.atomics for s in found)  # each alone needs it
        annotated = annotate_text(HISTOGRAM, found)
        sentinel = opts.dialect.sentinel
        assert _atomic_lines(annotated) == [f"#pragma {sentinel} atomic update"]


def test_updates_of_two_statements_each_stay_atomic() -> None:
    found = _suggestions(TWO_UPDATES, ACC)
    annotated = annotate_text(TWO_UPDATES, found)
    assert _atomic_lines(annotated) == ["#pragma acc atomic update"] * 2
    lines = annotated.splitlines()
    for at, line in enumerate(lines):
        if "atomic" in line:
            assert "+= 1;" in lines[at + 1]


def test_the_inner_level_compiles_with_the_outer_one(
    tmp_path: Path, need: Need
) -> None:
    need("gcc")
    found = _suggestions(HISTOGRAM, ACC)
    checked = compile_check(HISTOGRAM, str(tmp_path / "h.c"), found, CompilerSettings())
    inner = found[1]
    assert inner.pragma is not None
    assert inner.pragma.render() == "#pragma acc loop"  # two levels: no words
    assert checked[inner.loop.id].compiles is True


PREFIX = dedent(
    """\
    int h[16], g[16];
    void count(const int *restrict a, int n) {
      for (int x = 0; x < n; ++x)
        --h[a[x] & 15];
      for (int x = 0; x < n; ++x) {
        ++g[a[x] & 15];
      }
    }
    """
)


def test_a_prefix_update_gets_its_atomic_above_the_operator(
    tmp_path: Path, need: Need
) -> None:
    gcc = need("gcc")
    for opts, flag in ((ACC, "-fopenacc"), (OMP_GPU, "-fopenmp")):
        found = _suggestions(PREFIX, opts)
        assert [s.pragma is not None for s in found] == [True, True]
        annotated = annotate_text(PREFIX, found)
        lines = [ln.strip() for ln in annotated.splitlines()]
        sentinel = opts.dialect.sentinel
        for statement in ("--h[a[x] & 15];", "++g[a[x] & 15];"):
            at = lines.index(statement)
            assert lines[at - 1] == f"#pragma {sentinel} atomic update"
        out = tmp_path / f"prefix-{sentinel}.c"
        out.write_text(annotated)
        run = subprocess.run(
            [gcc, flag, "-fsyntax-only", str(out)], capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr


def test_a_prefix_update_inside_a_longer_statement_stays_refused() -> None:
    text = PREFIX.replace("--h[a[x] & 15];", "--h[a[x] & 15], --g[a[x] & 7];")
    found = _suggestions(text, ACC)
    assert found[0].pragma is None
    assert "cannot be made atomic" in found[0].reasons[0]


# The transposed CSR product: the update shares its line with the `for` header.
SCATTER = dedent(
    """\
    #define NR 40
    int rowptr[NR + 1], col[3 * NR];
    double val[3 * NR], x[NR], yt[NR];
    void spmv_t(void) {
      for (int i = 0; i < NR; i++)
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) yt[col[k]] += val[k] * x[i];
    }
    """
)


def test_an_update_after_a_header_on_its_line_gets_its_atomic(
    tmp_path: Path, need: Need
) -> None:
    gcc = need("gcc")
    opts = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    found = _suggestions(SCATTER, opts)
    assert found[0].pragma is not None
    assert found[0].atomics
    annotated = annotate_text(SCATTER, found)
    lines = [ln.strip() for ln in annotated.splitlines()]
    at = lines.index("yt[col[k]] += val[k] * x[i];")
    assert lines[at - 1] == "#pragma omp atomic update"
    out = tmp_path / "scatter.c"
    out.write_text(annotated)
    run = subprocess.run(
        [gcc, "-fopenmp", "-fsyntax-only", str(out)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr


def test_an_update_inside_an_expression_on_its_line_stays_refused() -> None:
    # `(void)(yt[..] += ..);` is no statement `atomic update` takes.
    text = SCATTER.replace("k++) yt[", "k++) (void)(yt[").replace("x[i];", "x[i]);")
    opts = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    found = _suggestions(text, opts)
    assert found[0].pragma is None
    assert "cannot be made atomic" in found[0].reasons[0]


@pytest.mark.parametrize(
    "body",
    [
        "(void) yt[col[k]] += val[k] * x[i];",  # a cast's `)`, no header's
        "(double) 0, yt[col[k]] += val[k] * x[i];",
    ],
)
def test_an_update_after_a_cast_on_its_line_stays_refused(body: str) -> None:
    # The `)` ahead of the update closes no `for`/`if`/`while` header: a pragma
    # there would split the expression and not compile.
    text = SCATTER.replace("yt[col[k]] += val[k] * x[i];", body)
    opts = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    found = _suggestions(text, opts)
    assert found[0].pragma is None


def test_an_update_after_an_if_header_on_its_line_gets_its_atomic() -> None:
    text = SCATTER.replace("k++) yt[", "k++) if (val[k] != 0.0) yt[")
    opts = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    found = _suggestions(text, opts)
    assert found[0].pragma is not None
    assert found[0].atomics


def test_a_fortran_update_after_a_logical_if_stays_refused() -> None:
    # A logical `if` holds its statement on its own line: no pragma fits between.
    text = dedent(
        """\
        subroutine hist(n, idx, w, h)
          integer :: n, i
          integer :: idx(n)
          real(8) :: w(n), h(100)
          do i = 1, n
            if (w(i) > 0) h(idx(i)) = h(idx(i)) + w(i)
          end do
        end subroutine
        """
    )
    opts = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    analysis = analyze_text(
        text, "hist.f90", options=AnalysisOptions(dialect=opts.dialect.sentinel)
    )
    (found,) = suggest_file(analysis, opts, regions=False)
    assert found.pragma is None
    assert "cannot be made atomic" in found.reasons[0]
