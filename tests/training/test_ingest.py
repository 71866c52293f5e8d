from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls_train.cli import main
from accls_train.dataset import read_pairs

PAIRS = [
    {
        "id": f"own/{repo}:k.c:{n}",
        "repo": f"own/{repo}",
        "path": "k.c",
        "line": n,
        "model": "openmp",
        "pragma": "#pragma omp parallel for reduction(+:s)",
        "enclosing_pragmas": [],
        "loop": "for (i = 0; i < n; i++) {\n  s += a[i];\n}",
    }
    for n, repo in enumerate(["one", "two", "three"], start=1)
]


def test_ingest_splits_by_repository(tmp_path: Path) -> None:
    src = tmp_path / "pairs.jsonl"
    src.write_text("".join(json.dumps(p) + "\n" for p in PAIRS))
    out = tmp_path / "data.jsonl"
    assert main(["ingest", str(src), "--out", str(out), "--test-repos", "own/two"]) == 0
    pairs = read_pairs(out)
    assert len(pairs) == 3
    assert {p.split for p in pairs if p.repo == "own/two"} == {"test"}
    assert "test" not in {p.split for p in pairs if p.repo != "own/two"}
    assert all("s += a[i]" in p.mcu for p in pairs)


def test_ingest_malformed_line_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "pairs.jsonl"
    src.write_text('{"id": "x"}\n')
    assert main(["ingest", str(src), "--out", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("accls-train: error:")
