from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze
from accls.frontend import parse_source
from accls.server.hover_text import HOVER_LINES, Offer, plain_text, render_hover
from accls.server.suggestions import BufferAnalysis, data_moves
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.suggest.explain import LoopReport, Transfer, explain_markdown
from accls.suggest.verdict import Verdict, decide, group_dependences, short_title

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

# Many dependences on a few arrays: they differ only in line and kind.
MANY = dedent(
    """\
    void sweep(int n, double *restrict a, double *restrict b, double *restrict c,
               double *restrict d, double *restrict e) {
        for (int i = 2; i < n; i++) {
            a[i] = a[i - 1] + a[i - 2];
            a[i] += a[i - 1];
            b[i] = b[i - 1] + a[i];
            b[i] += b[i - 2];
            c[i] = c[i - 1] + b[i];
            d[i] = d[i - 1] + c[i];
            e[i] = e[i - 1] + d[i];
        }
    }
    """
)

SMALL = dedent(
    """\
    void five(double *restrict a) {
        for (int m = 0; m < 5; m++)
            a[m] = 2.0 * m;
    }
    """
)

ALIAS = dedent(
    """\
    void axpy(int n, double a, double *y, const double *x) {
        for (int i = 0; i < n; i++)
            y[i] += a * x[i];
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


def report(text: str, status: str = "not checked yet") -> LoopReport:
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
    moves = data_moves(found, facts) if facts.parallel else ()
    return LoopReport(
        facts=facts,
        answers=tuple(offers),
        transfers=tuple(Transfer(m.section, m.direction, m.size) for m in moves),
    )


def hover(text: str, status: str = "not checked yet", *, markdown: bool = True) -> str:
    return render_hover(
        report(text, status),
        explain="[Explain this loop](command:x)",
        markdown=markdown,
    )


def test_parallel_loop_leads_with_the_verdict_and_the_pragmas() -> None:
    text = hover(DOT, status="compile: ok")
    assert text.startswith("**accls: `for (i)` at line 3 is parallel**\n")
    assert "- openacc: `#pragma acc parallel loop" in text
    assert "- openmp: `#pragma omp parallel for" in text
    assert "- checks: compile: ok" in text  # said once, not per pragma
    assert text.count("compile: ok") == 1
    assert "why:" not in text
    assert text.rstrip().endswith("[Explain this loop](command:x)")


def test_refused_loop_gives_one_reason_with_its_line() -> None:
    text = hover(SCAN)
    assert "is not parallel" in text
    assert "- why: line 3:" in text
    # The refusal of each model repeats the decisive reason: not shown again.
    assert "openacc: none" not in text
    assert "openmp: none" not in text
    assert "(?" not in text


def test_dependences_are_grouped_per_array_and_kind_within_the_budget() -> None:
    facts = report(MANY).facts
    groups = group_dependences(facts)
    assert len(groups) < len(facts.dependences)
    assert len({(g.array, g.kind) for g in groups}) == len(groups)
    assert all("?" not in g.render() for g in groups)
    text = hover(MANY)
    lines = text.rstrip("\n").splitlines()
    assert len(lines) <= HOVER_LINES
    shown = [g for g in groups if g.render() in text]
    assert len(shown) == len(groups) or "more by array and kind (full report)" in text
    assert text.count("- why:") == 1


def test_a_small_constant_trip_count_is_parallel_but_not_worth_it() -> None:
    r = report(SMALL)
    assert r.decision.verdict is Verdict.SMALL
    assert "is parallel, but small" in hover(SMALL)
    assert short_title(r.decision, r.facts) == "parallel · small (5 iterations)"


def test_aliasing_offers_restrict() -> None:
    r = report(ALIAS)
    assert (
        short_title(r.decision, r.facts) == "serial: `y` may alias `x` (add restrict)"
    )
    assert "- fix: declare the pointers `restrict`" in hover(ALIAS)


def test_plain_text_has_no_markdown() -> None:
    text = hover(DOT, markdown=False)
    assert "`" not in text
    assert "**" not in text
    assert "](" not in text
    assert text.startswith("accls: for (i) at line 3 is parallel\n")
    assert text.rstrip().endswith("Explain this loop")
    assert plain_text("[a](command:b) `c`\n") == "a c\n"


def test_the_full_report_keeps_every_fact() -> None:
    text = explain_markdown(report(DOT, status="compile: ok"))
    assert text.startswith("# accls: `for (i)` at line 3 is parallel\n")
    assert "- `s`: reduction(+) (line 5)" in text
    assert "- `t`: private" in text
    assert "  - source: analysis; validation: compile: ok" in text
    assert "- `x[0:n]` to device: n x double" in text
    scan = explain_markdown(report(SCAN))
    assert "## Why not\n\n- line 3:" in scan
    assert "- `a`: flow dependence, line 3, distance 1" in scan
    assert "- openacc: none (" in scan


def test_decide_without_a_suggestion_uses_the_facts() -> None:
    r = report(DOT)
    assert decide(r.facts).verdict is Verdict.PARALLEL
    assert decide(r.facts, covered=True).verdict is Verdict.COVERED


def test_more_arrays_than_the_budget_are_summed_up() -> None:
    names = [f"a{k}" for k in range(14)]
    params = ", ".join(f"double *restrict {n}" for n in names)
    body = "\n".join(f"        {n}[i] = {n}[i - 1] + 1.0;" for n in names)
    text = f"void wide(int n, {params}) {{\n    for (int i = 1; i < n; i++) {{\n"
    text += body + "\n    }\n}\n"
    out = hover(text)
    assert len(out.rstrip("\n").splitlines()) <= HOVER_LINES
    assert "more by array and kind (full report)" in out
    assert "- and 13 more reasons (full report)" in out
    full = explain_markdown(report(text))
    assert all(f"`{n}`: flow dependence" in full for n in names)


def test_the_hover_says_when_no_call_tells_the_array_parameters_apart() -> None:
    text = hover(
        "void shift(double a[], double b[], int n) {\n"
        "    for (int i = 0; i < n; i++) a[i] = b[i] + 1.0;\n"
        "}\n"
    )
    assert "is parallel" in text
    assert "- assuming: " in text
    assert "no call of `shift()` is in sight" in text
