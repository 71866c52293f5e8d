"""`_Bool` reductions: `+`, `-` and `^` convert every step, only the exact ones stay."""

from __future__ import annotations

import pytest
from accls.analysis import LoopFacts, ScalarClass, analyze_text
from accls.frontend import RedOp


def _facts(decl: str, update: str) -> LoopFacts:
    text = (
        "#include <stdbool.h>\ntypedef _Bool flag;\nint a[100];\n"
        f"int f(void) {{\n  {decl}\n"
        f"  for (int i = 0; i < 100; i++) {update}\n  return b;\n}}\n"
    )
    (facts,) = analyze_text(text).facts
    return facts


@pytest.mark.parametrize(
    ("decl", "update"),
    [
        # gcc leaves 4 in `b` when four threads each saw one `a[i] > 11`.
        ("_Bool b = 0;", "b += a[i] > 11;"),
        ("bool b = 0;", "b += a[i];"),
        ("flag b = 1;", "b -= a[i];"),
        ("_Bool b = 0;", "b ^= a[i];"),
        ("_Bool b = 0;", "b = b + a[i];"),
    ],
)
def test_an_arithmetic_update_of_a_bool_is_no_reduction(decl: str, update: str) -> None:
    facts = _facts(decl, update)
    assert not facts.parallel
    assert not any(s.cls is ScalarClass.REDUCTION for s in facts.scalars)
    (why,) = [o.message for o in facts.obstacles if o.variable == "b"]
    assert "converts the value to 0 or 1" in why


@pytest.mark.parametrize(
    ("decl", "update", "op"),
    [
        ("_Bool b = 0;", "b |= a[i];", RedOp.BOR),
        ("bool b = 1;", "b &= a[i];", RedOp.BAND),
        ("_Bool b = 1;", "b *= a[i];", RedOp.MUL),
        ("bool b = 0;", "b = b || a[i];", RedOp.LOR),
        ("char b = 0;", "b += a[i];", RedOp.ADD),  # wraps modulo 256: exact
    ],
)
def test_exact_updates_of_a_bool_and_sums_of_a_char_stay_reductions(
    decl: str, update: str, op: RedOp
) -> None:
    facts = _facts(decl, update)
    assert facts.parallel
    (fact,) = [s for s in facts.scalars if s.name == "b"]
    assert fact.cls is ScalarClass.REDUCTION
    assert fact.op is op
