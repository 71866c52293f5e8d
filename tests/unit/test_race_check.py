"""The race re-check withdraws a suggestion that the check catalog flags."""

from __future__ import annotations

from dataclasses import replace
from textwrap import dedent

from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import (
    Dialect,
    Suggestion,
    SuggestOptions,
    Target,
    parse_pragma,
    suggest_file,
)
from accls.validation.outcome import apply_validation
from accls.validation.race_check import race_check

SRC = dedent(
    """
    double dot(int n, const double *restrict x, const double *restrict y) {
      double s = 0.0;
      for (int i = 0; i < n; i++)
        s += x[i] * y[i];
      return s;
    }
    """
)
OMP = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)


def _suggestions() -> tuple[Suggestion, ...]:
    analysis = analyze_text(SRC, "dot.c", options=AnalysisOptions(dialect="omp"))
    return suggest_file(analysis, OMP)


def test_our_own_suggestion_is_race_free() -> None:
    found = _suggestions()
    assert found[0].pragma is not None
    assert race_check(SRC, "dot.c", found, "omp") == {}


def test_a_pragma_without_its_reduction_is_flagged_and_withdrawn() -> None:
    (good,) = _suggestions()
    bad = replace(good, pragma=parse_pragma("#pragma omp parallel for"))
    races = race_check(SRC, "dot.c", (bad,), "omp")
    assert {f.code for f in races[bad.loop.id]} == {"ACC104"}
    kept, validation = apply_validation((bad,), {}, races)
    assert kept[0].pragma is None
    assert validation[bad.loop.id].race_free is False


def test_shifts_match_a_pass_over_every_insertion() -> None:
    # Sorted with running totals (one binary search per question): 10,000
    # suggestions used to cost a pass over all 10,000 insertions each.
    from accls.validation.race_check import _Shifts

    edits = [(40, "#pragma x\n"), (0, "é\n"), (40, "ab"), (7, "")]
    shifts = _Shifts(edits)

    def brute(offset: int, inclusive: bool) -> int:
        return offset + sum(
            len(text.encode("utf-8"))
            for at, text in edits
            if at < offset or (inclusive and at == offset)
        )

    for offset in (0, 1, 7, 8, 39, 40, 41, 100):
        for inclusive in (False, True):
            assert shifts.moved(offset, inclusive=inclusive) == brute(offset, inclusive)
