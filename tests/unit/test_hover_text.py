from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze
from accls.frontend import parse_source
from accls.server.hover_text import Offer, render_hover
from accls.server.suggestions import BufferAnalysis, data_moves
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

DOT = dedent(
    """\
    double dot(int n, const double *restrict x, const double *restrict y) {
        double s = 0.0, t;
        for (int i = 0; i < n; i++) {
            t = x[i] * y[i];
            s += t;
        }
        return s;
    }
    """
)

SCAN = dedent(
    """\
    void scan(int n, long *restrict a) {
        for (int i = 1; i < n; i++)
            a[i] = a[i - 1] + a[i];
    }
    """
)


def analysed(text: str) -> BufferAnalysis:
    source = parse_source(text)
    return BufferAnalysis(
        source=source,
        acc=analyze(source, AnalysisOptions(dialect="acc")),
        omp=analyze(source, AnalysisOptions(dialect="omp")),
    )


def hover(text: str, status: str = "not checked yet") -> str:
    found = analysed(text)
    loop = found.source.nests[0]
    facts = found.acc.of(loop)
    offers = []
    for options in (
        SuggestOptions(Dialect.OPENACC, Target.GPU),
        SuggestOptions(Dialect.OPENMP, Target.CPU),
    ):
        suggestion = next(
            s
            for s in suggest_file(found.analysis(options.dialect), options)
            if s.loop.id == loop.id
        )
        offers.append(
            Offer(label=str(options.dialect), suggestion=suggestion, status=status)
        )
    return render_hover(
        facts, offers, data_moves(found, facts) if facts.parallel else ()
    )


def test_parallel_loop() -> None:
    text = hover(DOT, status="compile: ok")
    assert text.startswith("**accls: `for (i)` at line 3 is parallel**\n")
    assert "- `s`: reduction(+) (line 5)" in text
    assert "- `t`: private" in text
    assert "- openacc: `#pragma acc parallel loop" in text
    assert "- openmp: `#pragma omp parallel for" in text
    assert "  - source: analysis; validation: compile: ok" in text
    assert "- `x[0:n]` to device: n x double" in text
    assert "Why not:" not in text


def test_refused_loop_says_why_with_lines() -> None:
    text = hover(SCAN)
    assert "is not parallel" in text
    assert "Why not:\n- line 3:" in text
    assert "- `a`: flow dependence from line 3 to line 3, distance (1)" in text
    assert "- openacc: none (" in text
    assert "Data movement" not in text


def test_plain_text_friendly() -> None:
    text = hover(DOT)
    # No tables, HTML or headings: it reads the same as plain text in Neovim.
    assert "<" not in text.replace("<-", "").replace("i < n", "")
    assert "|" not in text
    lines = text.splitlines()
    assert len(lines) > 3
    assert not any(line.startswith("#") for line in lines)
    assert all(len(line) < 200 for line in lines)
