"""Calls of functions another file defines: their summaries decide, with their place."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import (
    PURE_FUNCTIONS,
    AnalysisOptions,
    Definition,
    LoopFacts,
    ProgramSummaries,
    Summary,
    analyze,
    summarize,
)
from accls.frontend import parse_source
from accls.project.summary_json import definition_from_json, definition_to_json
from accls.suggest import SuggestOptions, suggest_file
from accls.suggest.pragma import Dialect, Target

LOOP = dedent(
    """\
    void fill(double x, double *tmp);
    double shade(double v);
    void bump(int i);
    extern double table[8];
    void run(int n, double *restrict a, double *restrict b) {
      for (int i = 0; i < n; i++) {
        double tmp[5];
        %s
      }
    }
    """
)


def _summary(
    name: str,
    writes: frozenset[int] = frozenset(),
    globals_read: frozenset[str] = frozenset(),
) -> Summary:
    return Summary(
        name=name, writes=writes, reads=frozenset(), globals_read=globals_read
    )


def _program(*found: Definition) -> ProgramSummaries:
    return ProgramSummaries(found)


FILL = Definition(
    name="fill", file="b.c", line=12, summary=_summary("fill", frozenset({1}))
)
SHADE = Definition(
    name="shade",
    file="b.c",
    line=20,
    summary=_summary("shade", globals_read=frozenset({"table"})),
)
BUMP = Definition(
    name="bump", file="b.c", line=30, summary=None, why="which writes the global `n`"
)


def _facts(body: str, program: ProgramSummaries | None) -> LoopFacts:
    source = parse_source(LOOP % body, "a.c")
    return analyze(source, AnalysisOptions(dialect="omp", program=program)).facts[0]


def test_without_the_program_a_call_of_another_file_is_unknown() -> None:
    facts = _facts("fill(a[i], tmp); b[i] = tmp[0];", None)
    assert not facts.parallel
    assert "whose side effects are unknown" in facts.obstacles[0].message


def test_a_callee_writing_only_a_body_array_keeps_the_loop_parallel() -> None:
    facts = _facts("fill(a[i], tmp); b[i] = tmp[0];", _program(FILL))
    assert facts.parallel
    assert facts.call_effects == (
        "`fill()` (b.c:12) writes only `tmp` through its arguments, declared in "
        "the loop body: private to each iteration",
    )


def test_a_callee_writing_a_shared_argument_is_refused() -> None:
    facts = _facts("fill(a[i], b);", _program(FILL))
    assert not facts.parallel
    assert "which writes through `b`, shared by the iterations" in (
        facts.obstacles[0].message
    )


def test_a_callee_with_other_effects_is_refused_with_its_reason_and_place() -> None:
    facts = _facts("bump(i); b[i] = a[i];", _program(BUMP))
    assert [o.message for o in facts.obstacles] == [
        "calls `bump()` at line 8 (b.c:30), which writes the global `n`"
    ]


def test_a_global_the_callee_reads_and_the_loop_writes_is_seen() -> None:
    facts = _facts("table[i % 8] = a[i]; b[i] = shade(a[i]);", _program(SHADE))
    assert any(
        "reads the global `table`, and the loop writes it" in o.message
        for o in facts.obstacles
    )


def test_a_name_defined_in_two_files_is_ambiguous() -> None:
    other = Definition(name="fill", file="c.c", line=3, summary=FILL.summary)
    facts = _facts("fill(a[i], tmp); b[i] = tmp[0];", _program(FILL, other))
    assert not facts.parallel
    assert "defined in both `b.c:12` and `c.c:3`" in facts.obstacles[0].message


def test_the_files_own_definition_wins() -> None:
    text = "int count;\nvoid fill(double x, double *tmp) { count++; }\n" + LOOP % (
        "fill(a[i], tmp); b[i] = tmp[0];"
    )
    source = parse_source(text, "a.c")
    facts = analyze(
        source, AnalysisOptions(dialect="omp", program=_program(FILL))
    ).facts[0]
    assert not facts.parallel


def test_an_unknown_callee_says_what_would_tell() -> None:
    facts = _facts("fill(a[i], tmp); b[i] = tmp[0];", _program())
    assert "defined in no file of the project" in facts.obstacles[0].message
    pending = ProgramSummaries((), complete=False)
    facts = _facts("fill(a[i], tmp); b[i] = tmp[0];", pending)
    assert "still being indexed" in facts.obstacles[0].message


def test_summaries_compose_across_files() -> None:
    text = "void wrap(double x, double *out) { fill(x, out); }\n"
    source = parse_source("void fill(double x, double *tmp);\n" + text, "c.c")
    found = summarize("wrap", source, PURE_FUNCTIONS, None, _program(FILL))
    assert found is not None
    assert found.writes == frozenset({1})
    assert summarize("wrap", source, PURE_FUNCTIONS) is None


def test_offloading_needs_a_device_version_of_the_callee() -> None:
    source = parse_source(LOOP % "fill(a[i], tmp); b[i] = tmp[0];", "a.c")
    program = _program(FILL)
    gpu = SuggestOptions(Dialect.OPENACC, Target.GPU)
    analysis = analyze(source, AnalysisOptions(dialect="acc", program=program))
    (refused,) = [s for s in suggest_file(analysis, gpu) if s.loop.line == 6]
    assert refused.pragma is None
    assert any("acc routine seq" in r for r in refused.reasons)
    marked = _program(
        Definition(
            name="fill",
            file="b.c",
            line=12,
            summary=FILL.summary,
            device=frozenset({"acc"}),
        )
    )
    analysis = analyze(source, AnalysisOptions(dialect="acc", program=marked))
    (offered,) = [s for s in suggest_file(analysis, gpu) if s.loop.line == 6]
    assert offered.pragma is not None


def test_a_definition_round_trips_through_json() -> None:
    for found in (FILL, SHADE, BUMP):
        assert definition_from_json(definition_to_json(found)) == found
