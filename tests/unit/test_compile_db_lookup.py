"""Finding a file's compile database: above it, else the working folder's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls.project import find_database


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    build = tmp_path / "kernels" / "nstream"
    common = tmp_path / "common"
    build.mkdir(parents=True)
    common.mkdir()
    (common / "draw.c").write_text("int f(void) { return 1; }\n")
    (common / "other.c").write_text("int g(void) { return 2; }\n")
    entry = {"directory": str(build), "file": "../../common/draw.c", "command": "cc"}
    (build / "compile_commands.json").write_text(json.dumps([entry]))
    return build, common


def test_a_shared_file_uses_the_working_folders_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build, common = _tree(tmp_path)
    monkeypatch.chdir(build)
    assert find_database(str(common / "draw.c")) == str(
        Path.cwd() / "compile_commands.json"
    )


def test_a_database_that_does_not_list_the_file_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build, common = _tree(tmp_path)
    monkeypatch.chdir(build)
    assert find_database(str(common / "other.c")) is None
    monkeypatch.chdir(tmp_path)
    assert find_database(str(common / "draw.c")) is None


def test_a_broken_working_database_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build, common = _tree(tmp_path)
    (build / "compile_commands.json").write_text("[{not json")
    monkeypatch.chdir(build)
    assert find_database(str(common / "draw.c")) is None
