"""Feedback records become weighted pairs whose prompt is the one served."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls_train.dataset import DatasetError
from accls_train.examples import prompts_of
from accls_train.retrain import feedback_pairs, main, read_feedback

PROMPT = (
    "model: openmp\ntarget: cpu\ndeclarations:\nint n;\ndouble *a;\ndouble t;\n"
    "loop:\nfor (int i = 0; i < n; i++) {\n  t += a[i];\n}\npragma:\n"
)
LOOP = "for (int i = 0; i < n; i++) {\n  t += a[i];\n}"


def record(id_: int, final: str, model: str = "openmp") -> dict[str, object]:
    return {
        "id": id_,
        "time": "2026-11-01T10:00:00Z",
        "uri": "file:///src/a.c",
        "model": model,
        "target": "cpu",
        "source": "transformers",
        "prompt": PROMPT,
        "loop": LOOP,
        "suggested": "#pragma omp parallel for",
        "final": final,
        "edited": final != "#pragma omp parallel for",
    }


def test_edited_final_pragma_is_the_reference() -> None:
    records = [
        record(1, "#pragma omp parallel for   reduction(+:t)"),
        record(2, ""),  # the user deleted the pragma
        record(3, "#pragma acc parallel loop"),  # not the record's model
    ]
    (pair,) = feedback_pairs(records, weight=3.0)
    assert pair.pragma == "#pragma omp parallel for reduction(+:t)"
    assert (pair.weight, pair.origin, pair.model, pair.target) == (
        3.0,
        "feedback",
        "openmp",
        "cpu",
    )
    # The unit is rebuilt from the stored prompt: its prompt is the served one.
    assert prompts_of([pair]) == [PROMPT]


def test_cli_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feedback = tmp_path / "feedback.jsonl"
    feedback.write_text(json.dumps(record(1, "")) + "\n", encoding="utf-8")
    base = tmp_path / "base.jsonl"
    base.write_text("", encoding="utf-8")
    argv = ["--feedback", str(feedback), "--base", str(base), "--from", "models/x"]
    assert main(argv) == 2
    assert capsys.readouterr().err.strip().endswith("no applied pragma to learn from")
    feedback.write_text('{"model": "openmp"}\n', encoding="utf-8")
    assert main(argv) == 2
    assert "missing field 'prompt'" in capsys.readouterr().err
    with pytest.raises(DatasetError, match="cannot read"):
        read_feedback(tmp_path / "absent.jsonl")
