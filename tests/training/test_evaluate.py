"""`accls-train evaluate` with the analysis backend on the mined fixture pairs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import accls_train.evaluate
import pytest
from accls_train.dataset import Pair, read_pairs, write_pairs
from accls_train.evaluate import main
from accls_train.metrics import score, summarise
from accls_train.mine import main as mine

Need = Callable[[str], str]

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "mine"


@pytest.fixture(scope="module")
def evaluated(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, list[Pair], dict[str, Any]]:
    root = tmp_path_factory.mktemp("eval")
    data = root / "pairs.jsonl"
    assert mine([str(FIXTURE), "--out", str(data)]) == 0
    out = root / "report"
    cache = str(root / "cc")
    assert (
        main(
            [
                "--data",
                str(data),
                "--split",
                "all",
                "--out",
                str(out),
                "--cache-dir",
                cache,
            ]
        )
        == 0
    )
    return out, read_pairs(data), json.loads((out / "metrics.json").read_text())


def test_reference_scores_perfectly_against_itself(
    evaluated: tuple[Path, list[Pair], dict[str, Any]], need: Need
) -> None:
    need("gcc")
    _, pairs, report = evaluated
    reference = report["backends"]["reference"]
    assert reference["n"] == len(pairs) == 4
    for key in ("coverage", "directive", "jaccard", "levenshtein", "exact"):
        assert reference[key] == 1.0
    # The fixture's units all compile and pass the race checks.
    assert reference["compile"] == 1.0
    assert reference["race_free"] == 1.0


def test_analysis_row_matches_its_recorded_predictions(
    evaluated: tuple[Path, list[Pair], dict[str, Any]],
) -> None:
    out, pairs, report = evaluated
    rows = [
        json.loads(line)
        for line in (out / "predictions.jsonl").read_text().splitlines()[1:]
    ]
    analysis = {r["id"]: r for r in rows if r["backend"] == "analysis"}
    assert set(analysis) == {p.id for p in pairs}
    expected = summarise(
        [
            score(
                p.pragma,
                analysis[p.id]["prediction"],
                compiles=analysis[p.id].get("compiles"),
                race_free=analysis[p.id].get("race_free"),
            )
            for p in pairs
        ]
    )
    row = report["backends"]["analysis"]
    assert row["jaccard"] == pytest.approx(expected.jaccard)
    assert row["exact"] == pytest.approx(expected.exact)
    assert row["errors"] == expected.errors
    assert sum(row["errors"].values()) == round((1 - row["exact"]) * 4)
    # The analysis refuses the loop that calls a function it cannot see into.
    assert analysis["alice/stencils:src/smooth.c:27"]["prediction"] is None
    assert row["coverage"] == pytest.approx(0.75)


def test_report_files(evaluated: tuple[Path, list[Pair], dict[str, Any]]) -> None:
    out, _, report = evaluated
    markdown = (out / "report.md").read_text()
    assert "| analysis | 4 |" in markdown
    assert "clauses partially wrong" in markdown
    assert "![metrics by backend](chart.png)" in markdown
    assert (out / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert set(report["backends"]["analysis"]["by_model"]) == {"openacc", "openmp"}


def test_rerun_resumes_from_recorded_predictions(
    evaluated: tuple[Path, list[Pair], dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out, _pairs, report = evaluated
    data = out.parent / "pairs.jsonl"

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a recorded prediction was computed again")

    monkeypatch.setattr(accls_train.evaluate, "Predictor", refuse)
    args = ["--data", str(data), "--split", "all", "--out", str(out)]
    assert main([*args, "--cache-dir", str(out.parent / "cc")]) == 0
    assert json.loads((out / "metrics.json").read_text()) == report


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--backends", "oracle"], "unknown backend 'oracle'"),
        (["--backends", "model"], "need --model-path"),
        (["--model-path", "/nonexistent/model"], "no model folder"),
        (["--split", "valid"], "no pairs in split 'valid'"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    data = tmp_path / "pairs.jsonl"
    write_pairs(data, [])
    assert main(["--data", str(data), "--out", str(tmp_path / "o"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
