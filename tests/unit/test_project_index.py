"""The workspace index: summaries of a project's files, persisted by content hash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from accls.project import ProjectIndex, index_cache, project_files

B_C = """\
#include <stdio.h>
int counter;
void fill(double x, double *tmp) { for (int k = 0; k < 5; k++) tmp[k] = x * k; }
static void hidden(double *p) { p[0] = 1.0; }
void bump(void) { counter++; }
void say(int i) { printf("%d\\n", i); }
"""
C_C = """\
void fill(double x, double *tmp);
void wrap(double x, double *out) { fill(x, out); }
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "b.c").write_text(B_C)
    (root / "c.c").write_text(C_C)
    (root / "notes.txt").write_text("not C")
    return root


def _index(project: Path, cache: Path) -> ProjectIndex:
    index = ProjectIndex(str(project), cache_dir=str(cache))
    index.build()
    return index


def test_project_files_are_the_c_files_of_the_folder(project: Path) -> None:
    names = [Path(p).name for p in project_files(str(project))]
    assert names == ["b.c", "c.c"]


def test_the_database_lists_the_files(project: Path, tmp_path: Path) -> None:
    database = project / "compile_commands.json"
    entry = {"directory": str(project), "file": "c.c", "command": "cc -c c.c"}
    database.write_text(json.dumps([entry]))
    assert project_files(str(project), str(database)) == (str(project / "c.c"),)


def test_the_program_names_what_the_other_files_call(
    project: Path, tmp_path: Path
) -> None:
    index = _index(project, tmp_path / "cache")
    assert "fill" in index.program_for(None).called
    assert "fill" not in index.program_for(str(project / "c.c")).called


def test_build_summarises_the_external_functions(project: Path, tmp_path: Path) -> None:
    index = _index(project, tmp_path / "cache")
    program = index.program_for(None)
    assert program.complete
    fill = program.only("fill")
    assert fill is not None
    assert fill.place == "b.c:3"
    assert fill.summary is not None
    assert fill.summary.writes == frozenset({1})
    assert not program.lookup("hidden")  # static: only its file sees it
    bump = program.only("bump")
    assert bump is not None
    assert bump.summary is None
    assert bump.why == "which writes the global `counter`"
    say = program.only("say")
    assert say is not None
    assert "does I/O" in say.why


def test_a_call_chain_across_files_is_summarised(project: Path, tmp_path: Path) -> None:
    program = _index(project, tmp_path / "cache").program_for(None)
    wrap = program.only("wrap")
    assert wrap is not None
    assert wrap.summary is not None
    assert wrap.summary.writes == frozenset({1})


def test_a_files_own_definitions_are_left_out_of_its_view(
    project: Path, tmp_path: Path
) -> None:
    index = _index(project, tmp_path / "cache")
    mine = index.program_for(str(project / "b.c"))
    assert not mine.lookup("fill")
    assert mine.only("wrap") is not None


def test_a_restart_reads_the_cache_without_parsing(
    project: Path, tmp_path: Path
) -> None:
    first = _index(project, tmp_path / "cache")
    assert first.parses >= 2
    again = _index(project, tmp_path / "cache")
    assert again.parses == 0
    assert again.program_for(None) == first.program_for(None)


def test_another_version_of_accls_does_not_read_the_cache(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _index(project, tmp_path / "cache")
    monkeypatch.setattr(index_cache, "code_fingerprint", lambda: "another-version")
    assert _index(project, tmp_path / "cache").parses >= 2


def test_a_changed_file_is_summarised_again(project: Path, tmp_path: Path) -> None:
    _index(project, tmp_path / "cache")
    (project / "b.c").write_text(B_C.replace("tmp[k] = x * k;", "counter = k;"))
    index = _index(project, tmp_path / "cache")
    # b.c changed, and c.c calls what it defines: both are summarised again.
    assert index.parses == 2
    fill = index.program_for(None).only("fill")
    assert fill is not None
    assert fill.summary is None
    wrap = index.program_for(None).only("wrap")
    assert wrap is not None
    assert wrap.summary is None


def test_update_re_summarises_one_file(project: Path, tmp_path: Path) -> None:
    index = _index(project, tmp_path / "cache")
    before = index.parses
    assert index.update(str(project / "b.c"), B_C + "void more(void) {}\n")
    assert index.parses == before + 1  # its definitions' summaries did not change
    assert index.program_for(None).only("more") is not None
    assert index.update(str(project / "b.c"), B_C + "void more(void) {}\n")
    assert index.parses == before + 1  # the same text: nothing to do


def test_a_broken_cache_record_is_a_miss(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _index(project, cache)
    for record in cache.rglob("*.json"):
        record.write_text("{not json")
    assert _index(project, cache).parses >= 2


def test_a_removed_file_leaves_the_index(project: Path, tmp_path: Path) -> None:
    index = _index(project, tmp_path / "cache")
    (project / "c.c").unlink()
    index.build()
    assert not index.program_for(None).lookup("wrap")


def test_an_edit_of_one_function_reparses_only_its_slice(
    project: Path, tmp_path: Path
) -> None:
    index = _index(project, tmp_path / "cache")
    path = str(project / "b.c")
    assert index.update(path, B_C)  # the text on disk: nothing changes
    before = index.parses
    edited = B_C.replace("tmp[k] = x * k;", "tmp[k] = x * k; counter++;")
    assert index.update(path, edited)
    program = index.program_for(None)
    fill = program.only("fill")
    assert fill is not None
    assert fill.summary is None
    assert fill.why == "which writes the global `counter`"
    # b.c is not parsed whole; c.c, which calls `fill`, is summarised again.
    assert index.parses == before + 1
    wrap = program.only("wrap")
    assert wrap is not None
    assert wrap.summary is None


def test_an_edit_after_a_text_read_from_the_cache_keeps_no_stale_function(
    project: Path, tmp_path: Path
) -> None:
    index = _index(project, tmp_path / "cache")
    path = str(project / "b.c")
    writes = B_C.replace("tmp[k] = x * k;", "tmp[k] = x * k; counter++;")
    assert index.update(path, writes)  # `fill` writes the global
    assert index.update(path, B_C)  # undone: the record comes from the cache
    # `fill` writes the global again, and another function changes too.
    again = writes.replace('"%d\\n"', '"%d!\\n"')
    assert again != writes
    assert index.update(path, again)
    fill = index.program_for(None).only("fill")
    assert fill is not None
    assert fill.summary is None
    assert fill.why == "which writes the global `counter`"


def test_an_edit_that_moves_lines_keeps_the_places_right(
    project: Path, tmp_path: Path
) -> None:
    index = _index(project, tmp_path / "cache")
    path = str(project / "b.c")
    index.update(path, B_C)
    edited = B_C.replace("{ for (int k", "{\n\n  for (int k")
    assert index.update(path, edited)
    bump = index.program_for(None).only("bump")
    assert bump is not None
    assert bump.line == 7


def test_a_file_the_analysis_fails_on_exports_nothing(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import accls.project.definitions as definitions_module

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(definitions_module, "summarize", broken)
    index = _index(project, tmp_path / "cache")
    assert not index.program_for(None).lookup("fill")
