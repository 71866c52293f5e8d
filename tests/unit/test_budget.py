"""The dependence test's work budget: big loops are refused in units, not minutes."""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, ObstacleCode, analyze_text
from accls.analysis.budget import Budget, TooLarge
from accls.analysis.dependence import nest_dependences
from accls.frontend import parse_source

HEAD = "void f(int n, double *restrict a, double *restrict b, double *restrict c)"


def loop_of(statements: list[str]) -> str:
    body = "\n".join(f"        {s}" for s in statements)
    return f"{HEAD} {{\n    for (int i = 1; i < n; i++) {{\n{body}\n    }}\n}}\n"


def repeated(count: int, statements: tuple[str, ...]) -> str:
    return loop_of([statements[k % len(statements)] for k in range(count)])


SHAPES = ("a[i] = a[i] + b[i];", "c[i] = b[i] * 2.0;", "b[i] = c[i] - a[i];")


def test_references_of_one_shape_are_tested_once() -> None:
    # 1,500 statements of three shapes: nine shape pairs, not a million pairs.
    text = repeated(1500, SHAPES)
    analysis = analyze_text(text, options=AnalysisOptions(budget=Budget(tests=100)))
    (facts,) = analysis.facts
    assert facts.parallel, [o.message for o in facts.obstacles]


def test_carried_dependences_of_repeated_shapes_are_all_kept() -> None:
    text = repeated(40, ("a[i] = a[i - 1] + b[i];",))
    (nest,) = parse_source(text).nests
    found = nest_dependences(nest, Budget(tests=10), independent=False)
    # Each of the 40 writes of a[i] feeds each of the 40 reads of a[i - 1].
    flows = {(d.source, d.sink) for d in found if d.kind.value == "flow"}
    assert len(flows) == 40 * 40
    assert all(d.carrier is not None for d in found)


@pytest.mark.parametrize(
    ("budget", "what"),
    [
        (Budget(references=50), "references"),
        (Budget(tests=2), "subscript pairs to test"),
        (Budget(dependences=100), "dependences"),
    ],
)
def test_a_nest_past_its_budget_raises(budget: Budget, what: str) -> None:
    text = loop_of([f"a[i + {k}] = a[i - {k}] + b[i];" for k in range(30)])
    (nest,) = parse_source(text).nests
    with pytest.raises(TooLarge) as raised:
        nest_dependences(nest, budget)
    assert raised.value.what == what


def test_a_loop_past_the_budget_is_refused_with_the_code() -> None:
    text = loop_of([f"a[i + {k}] = a[i - {k}] + b[i];" for k in range(30)])
    analysis = analyze_text(text, options=AnalysisOptions(budget=Budget(tests=5)))
    (facts,) = analysis.facts
    assert not facts.parallel
    (obstacle,) = facts.obstacles
    assert obstacle.code == ObstacleCode.TOO_LARGE
    assert "too large to analyse here" in obstacle.message


def test_the_default_budget_refuses_a_huge_loop_quickly() -> None:
    # 8,000 distinct subscripts: 32 million pairs before, refused on its count now.
    text = loop_of([f"a[i + {k}] = b[i];" for k in range(8000)])
    (facts,) = analyze_text(text).facts
    assert [o.code for o in facts.obstacles] == [ObstacleCode.TOO_LARGE]
