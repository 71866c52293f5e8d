"""The dataset record, its files, near-duplicate keys and repository splits."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from accls_train.cli import main
from accls_train.dataset import (
    DatasetError,
    Pair,
    Split,
    ingest_pairs,
    insert_pragma,
    near_key,
    read_pairs,
    split_by_repo,
    write_pairs,
)

Need = Callable[[str], str]

MCU = "void f(int n, double *a)\n{\n    for (int i = 0; i < n; i++)\n        a[i] = 0;\n}\n"  # noqa: E501


def make_pair(repo: str = "o/r", index: int = 0, **changes: object) -> Pair:
    fields: dict[str, object] = {
        "id": f"{repo}:f.c:{index}",
        "repo": repo,
        "path": "f.c",
        "line": 3,
        "model": "openacc",
        "target": "gpu",
        "pragma": "#pragma acc parallel loop",
        "loop": "for (int i = 0; i < n; i++)\n    a[i] = 0;",
        "mcu": MCU,
    }
    fields.update(changes)
    return Pair.from_json(fields)


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    pairs = [
        make_pair(region="#pragma acc data copy(a[0:n])", weight=2.5),
        make_pair(index=1),
    ]
    out = tmp_path / "sub" / "pairs.jsonl"
    assert write_pairs(out, pairs) == 2
    assert read_pairs(out) == pairs
    first = json.loads(out.read_text().splitlines()[0])
    assert list(first) == [
        "id", "repo", "path", "line", "model", "target", "pragma", "loop", "mcu",
        "region", "origin", "weight", "split",
    ]  # fmt: skip
    assert read_pairs(out, split="test") == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not JSON"),
        ('{"id": "x"}', "missing field"),
        (json.dumps({**make_pair().to_json(), "model": "cuda"}), "model must be"),
        (json.dumps({**make_pair().to_json(), "line": "three"}), "bad field value"),
    ],
)
def test_bad_records_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    file = tmp_path / "bad.jsonl"
    file.write_text(json.dumps(make_pair().to_json()) + "\n" + line + "\n")
    with pytest.raises(DatasetError, match=f"bad.jsonl:2: .*{message}"):
        read_pairs(file)


def test_missing_file_is_a_dataset_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="cannot read"):
        read_pairs(tmp_path / "nope.jsonl")


def test_insert_pragma_goes_above_the_line_with_its_indent() -> None:
    unit = insert_pragma(MCU, 3, "#pragma acc parallel loop")
    assert unit.splitlines()[2] == "    #pragma acc parallel loop"
    assert unit.splitlines()[3].lstrip().startswith("for")
    with pytest.raises(DatasetError):
        insert_pragma(MCU, 99, "#pragma omp for")


def test_near_key_ignores_names_spacing_and_comments() -> None:
    a = near_key("#pragma acc loop copy(a[0:n])", "for (i = 0; i < n; i++) a[i] = 0;")
    b = near_key(
        "#pragma  acc loop copy(b[0:m])",
        "for (k = 0; k < m; k++) /* zero */\n  b[k] = 0;",
    )
    assert a == b
    # A different directive, or a different loop shape, is a different pair.
    assert a != near_key(
        "#pragma acc kernels copy(a[0:n])", "for (i = 0; i < n; i++) a[i] = 0;"
    )
    assert a != near_key(
        "#pragma acc loop copy(a[0:n])", "for (i = 0; i < n; i++) a[i] = 1;"
    )
    # Keywords are kept: `int` is not renamed like a variable.
    assert "int" in near_key("#pragma omp for", "for (int i = 0; i < n; i++) ;")


def test_split_keeps_each_repository_whole_and_is_deterministic() -> None:
    sizes = {"a/1": 40, "b/2": 10, "c/3": 10, "d/4": 25, "e/5": 5, "f/6": 10}
    pairs = [make_pair(repo, i) for repo, n in sizes.items() for i in range(n)]
    split = split_by_repo(pairs, seed=3)
    assert split == split_by_repo(pairs, seed=3)
    by_repo: dict[str, set[str]] = {}
    for pair in split:
        by_repo.setdefault(pair.repo, set()).add(pair.split)
    assert by_repo.keys() == sizes.keys()
    assert all(len(s) == 1 for s in by_repo.values())
    test = sum(1 for p in split if p.split == Split.TEST)
    valid = sum(1 for p in split if p.split == Split.VALID)
    assert 0 < test <= 20
    assert 0 < valid <= 10
    assert any(p.split == Split.TRAIN for p in split)


def test_split_honours_given_test_repositories() -> None:
    pairs = [make_pair("a/1"), make_pair("b/2"), make_pair("c/3")]
    split = split_by_repo(pairs, test_repos=["b/2"], valid_frac=0)
    assert [p.split for p in split] == ["train", "test", "train"]
    with pytest.raises(DatasetError, match="z/9"):
        split_by_repo(pairs, test_repos=["z/9"])


def test_a_single_repository_stays_in_train() -> None:
    assert {p.split for p in split_by_repo([make_pair(), make_pair(index=1)])} == {
        "train"
    }


def test_ingest_wraps_a_bare_loop_in_a_function(tmp_path: Path, need: Need) -> None:
    raw = {
        "id": "o/r:k.c:3",
        "repo": "o/r",
        "commit": "abc",
        "path": "k.c",
        "line": 3,
        "model": "openmp",
        "pragma": "#pragma omp parallel for reduction(+:sum)",
        "enclosing_pragmas": [],
        "loop": "for (i = 0; i < n; i++) {\n  sum += a[i][j] * w(b[i]);\n}",
    }
    file = tmp_path / "dev.jsonl"
    file.write_text(json.dumps(raw) + "\n")
    (pair,) = ingest_pairs(file)
    assert pair.target == "cpu"
    assert pair.origin == "mined"
    assert pair.mcu.splitlines()[pair.line - 1].lstrip().startswith("for (i = 0")
    assert "double (*a)[ACCLS_N]" in pair.mcu
    assert "int i" in pair.mcu
    assert "double sum" in pair.mcu
    gcc = need("gcc")
    unit = tmp_path / "unit.c"
    unit.write_text(insert_pragma(pair.mcu, pair.line, pair.pragma))
    result = subprocess.run(
        [gcc, "-fsyntax-only", "-fopenmp", str(unit)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_cli_rejects_unknown_stages(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["polish"])
    assert stop.value.code == 2
    assert "invalid choice: 'polish'" in capsys.readouterr().err


def test_cli_stage_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mine", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("accls-train: error: mine: not a directory")
    assert err.count("\n") == 1


def test_write_pairs_gives_a_readable_file_and_keeps_the_old_one_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os
    import stat

    out = tmp_path / "pairs.jsonl"
    mask = os.umask(0o022)
    try:
        write_pairs(out, [make_pair()])
    finally:
        os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    before = out.read_bytes()

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(DatasetError, match="No space left"):
        write_pairs(out, [make_pair(index=i) for i in range(3)])
    monkeypatch.undo()
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.jsonl"]
