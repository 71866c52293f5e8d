"""callee_fills: an array a callee fills before the iteration reads it is private."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.analysis import LoopFacts, analyze_text

FIXTURES = Path(__file__).parent.parent / "fixtures" / "c" / "callee_fills"


def _facts(name: str) -> dict[str, LoopFacts]:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    facts = analyze_text(text).facts
    return {f.loop.function or "": f for f in facts if f.loop.var == "i"}


@pytest.mark.parametrize("function", ["whole", "part", "nested", "counted", "rows"])
def test_filled_array_is_private(function: str) -> None:
    facts = _facts("run.c")[function]
    assert facts.parallel, facts.obstacles
    assert facts.private_arrays == ("tmp",)


@pytest.mark.parametrize(
    "function",
    [
        "conditional",  # the callee writes under a branch
        "returns",  # a `return` may skip the writes
        "rest",  # reads `tmp[3]`, which the callee leaves alone
        "callee_reads",  # the callee reads `c[0]` before writing it
        "read_before",  # the iteration reads `tmp` before the call
        "live_out",  # `tmp` is read after the loop
        "skipped",  # the call runs in some iterations only
        "loop_guarded",  # the callee's loop writes under a branch
        "loop_stepped",  # its loop skips every other element
        "loop_stopped",  # its loop may stop early
        "rows_beyond",  # an inner loop reads `local[8]`, which is never filled
    ],
)
def test_unproved_fill_is_refused(function: str) -> None:
    facts = _facts("refused.c")[function]
    assert not facts.parallel
    assert "tmp" not in facts.private_arrays
