"""Rows passed to callees: `zero3(f[i])` is an access of row `i` of `f`."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.analysis.subscript_equalities import equalities
from accls.frontend import Poly, Subscript
from accls.suggest.options import SuggestOptions
from accls.suggest.rules import suggest_file

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "c" / "row_arguments.c"


def _verdicts() -> dict[str, tuple[bool, str]]:
    found = analyze_text(FIXTURE.read_text("utf-8"), str(FIXTURE)).facts
    out: dict[str, tuple[bool, str]] = {}
    for facts in found:
        if facts.loop.function and facts.loop.function != "main":
            text = " ".join(o.message for o in facts.obstacles)
            out[facts.loop.function] = (facts.parallel, text or str(facts.call_effects))
    return out


def test_a_callee_writing_the_iterations_row_is_parallel() -> None:
    verdicts = _verdicts()
    assert verdicts["reset"][0], verdicts["reset"]
    assert verdicts["push"][0], verdicts["push"]
    assert "writes only the row `f[i]`" in verdicts["reset"][1]


@pytest.mark.parametrize(
    ("function", "reason"),
    [
        ("pinned", "flow dependence on `f`: `f[k]`"),
        ("next_row", "`f[i + 1]` (line"),
        ("shared_rows", "which writes through `rows[i]`, shared by the iterations"),
    ],
)
def test_rows_that_other_iterations_touch_stay_refused(
    function: str, reason: str
) -> None:
    parallel, text = _verdicts()[function]
    assert not parallel
    assert reason in text


def test_a_row_and_an_element_compare_on_their_common_subscripts() -> None:
    row = (Subscript("i", Poly.sym("i")),)
    element = (Subscript("i", Poly.sym("i")), Subscript("0", Poly.const(0)))
    rows = equalities(
        "f", (row, element), ((Poly.sym("s0"),), (Poly.sym("t0"), Poly.const(0))), ()
    )
    assert not isinstance(rows, str)
    assert len(rows) == 1


def test_offloaded_the_row_a_callee_writes_is_moved_by_the_data_clauses() -> None:
    # OpenACC for the GPU, the default suggestion.
    analysis = analyze_text(FIXTURE.read_text("utf-8"), str(FIXTURE))
    found = suggest_file(analysis, SuggestOptions())
    reset = next(s for s in found if s.loop.function == "reset" and not s.inner)
    assert reset.pragma is not None
    assert "copy(f[0:n])" in reset.pragma.render()
