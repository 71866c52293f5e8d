"""The feedback store: WAL mode, record/edit/export, two connections, bad files, CLI."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

import pytest
from accls.cli import main
from accls.feedback import (
    SCHEMA_VERSION,
    FeedbackError,
    FeedbackStore,
    default_path,
)

ROOT = Path(__file__).resolve().parents[2]
LOOP = "for (int i = 0; i < n; i++) y[i] += a * x[i];"
PRAGMA = "#pragma acc parallel loop copy(y[0:n]) copyin(x[0:n])"
EXPORT_KEYS = {
    "id",
    "time",
    "uri",
    "model",
    "target",
    "source",
    "prompt",
    "loop",
    "suggested",
    "final",
    "edited",
}


def _apply(store: FeedbackStore, pragma: str = PRAGMA, uri: str = "file:///a.c") -> int:
    return store.record_applied(
        uri=uri,
        model="openacc",
        target="gpu",
        source="analysis",
        prompt=f"loop:\n{LOOP}\npragma:\n",
        loop=LOOP,
        pragma=pragma,
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "data" / "feedback.sqlite3"


def test_new_store_is_in_wal_mode_with_schema_version(db: Path) -> None:
    FeedbackStore(db).close()
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()


def test_record_edit_and_export_round_trip(db: Path) -> None:
    with FeedbackStore(db) as store:
        kept = _apply(store)
        changed = _apply(store, uri="file:///b.c")
        store.record_edit(changed, "#pragma acc parallel loop gang")
        store.record_edit(changed, "#pragma acc parallel loop gang vector")
        out = io.StringIO()
        count = store.export_jsonl(out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert count == len(lines) == 2
    assert all(set(line) == EXPORT_KEYS for line in lines)
    first, second = lines
    assert (first["id"], first["final"], first["edited"]) == (kept, PRAGMA, False)
    # The latest edit wins; the suggestion itself is kept alongside it.
    assert second["id"] == changed
    assert second["suggested"] == PRAGMA
    assert second["final"] == "#pragma acc parallel loop gang vector"
    assert second["edited"] is True
    assert second["uri"] == "file:///b.c"
    assert second["time"].endswith("Z")


def test_deleting_the_pragma_counts_as_an_edit(db: Path) -> None:
    with FeedbackStore(db) as store:
        store.record_edit(_apply(store), "")
        (record,) = store.applied()
    assert (record.final, record.edited) == ("", True)


def test_edit_back_to_the_suggestion_is_not_an_edit(db: Path) -> None:
    with FeedbackStore(db) as store:
        applied_id = _apply(store)
        store.record_edit(applied_id, "#pragma acc kernels")
        store.record_edit(applied_id, PRAGMA)
        (record,) = store.applied()
    assert (record.final, record.edited) == (PRAGMA, False)


def test_edit_of_unknown_id_is_an_error(db: Path) -> None:
    with FeedbackStore(db) as store, pytest.raises(FeedbackError, match="id 42"):
        store.record_edit(42, PRAGMA)


def test_records_persist_across_reopen(db: Path) -> None:
    with FeedbackStore(db) as store:
        applied_id = _apply(store)
    with FeedbackStore(db) as store:
        assert [r.id for r in store.applied()] == [applied_id]


def test_two_connections_see_each_others_writes(db: Path) -> None:
    with FeedbackStore(db) as one, FeedbackStore(db) as two:
        first = _apply(one)
        second = _apply(two)
        two.record_edit(first, "#pragma acc kernels loop")
        assert first != second
        assert [(r.id, r.final) for r in one.applied()] == [
            (first, "#pragma acc kernels loop"),
            (second, PRAGMA),
        ]


def test_two_processes_write_concurrently(db: Path) -> None:
    writer = dedent(
        f"""
        import sys
        from pathlib import Path
        from accls.feedback import FeedbackStore
        with FeedbackStore(Path(sys.argv[1])) as store:
            for k in range(25):
                store.record_applied(uri=sys.argv[2], model="openmp", target="cpu",
                    source="analysis", prompt="p", loop="l", pragma={PRAGMA!r})
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", writer, str(db), f"file:///{n}.c"])
        for n in ("a", "b")
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    with FeedbackStore(db) as store:
        uris = [r.uri for r in store.applied()]
    assert sorted(set(uris)) == ["file:///a.c", "file:///b.c"]
    assert len(uris) == 50


def test_corrupt_file_gives_feedback_error(db: Path) -> None:
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not an SQLite database, just text\n" * 100)
    with pytest.raises(FeedbackError, match="not a usable feedback database"):
        FeedbackStore(db)


def test_foreign_sqlite_file_is_refused(db: Path) -> None:
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE other (x INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(FeedbackError, match="not a feedback database"):
        FeedbackStore(db)


def test_newer_schema_is_refused(db: Path) -> None:
    FeedbackStore(db).close()
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(FeedbackError, match="newer accls"):
        FeedbackStore(db)


def test_directory_or_unwritable_parent_gives_feedback_error(tmp_path: Path) -> None:
    with pytest.raises(FeedbackError, match="is a directory"):
        FeedbackStore(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(FeedbackError, match="cannot create the feedback directory"):
        FeedbackStore(blocker / "sub" / "feedback.sqlite3")


def test_use_after_close_is_a_feedback_error(db: Path) -> None:
    store = FeedbackStore(db)
    store.close()
    with pytest.raises(FeedbackError):
        store.applied()


def test_env_var_overrides_default_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACCLS_FEEDBACK_DB", str(tmp_path / "x.db"))
    assert default_path() == tmp_path / "x.db"
    monkeypatch.delenv("ACCLS_FEEDBACK_DB")
    assert default_path().name == "feedback.sqlite3"
    assert "accls" in default_path().parts


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_export_to_stdout_and_file(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FeedbackStore(db) as store:
        store.record_edit(_apply(store), "#pragma acc parallel loop gang")
        _apply(store)
    code, out, err = _cli(capsys, "feedback", "export", "--db", str(db))
    assert code == 0
    assert [json.loads(line)["edited"] for line in out.splitlines()] == [True, False]
    assert "2 feedback record(s)" in err
    target = tmp_path / "out.jsonl"
    assert (
        _cli(capsys, "feedback", "export", "--db", str(db), "-o", str(target))[0] == 0
    )
    assert target.read_text(encoding="utf-8") == out


def test_cli_export_never_overwrites_without_force(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FeedbackStore(db) as store:
        _apply(store)
    target = tmp_path / "out.jsonl"
    target.write_text("keep me\n")
    code, _, err = _cli(
        capsys, "feedback", "export", "--db", str(db), "-o", str(target)
    )
    assert code == 2
    assert err.startswith("accls: error:")
    assert "--force" in err
    assert target.read_text() == "keep me\n"
    argv = ("feedback", "export", "--db", str(db), "-o", str(target), "--force")
    assert _cli(capsys, *argv)[0] == 0
    assert json.loads(target.read_text())["suggested"] == PRAGMA


@pytest.mark.parametrize("kind", ["missing", "corrupt"])
def test_cli_export_bad_db_is_one_line_error(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "feedback.sqlite3"
    if kind == "corrupt":
        db.write_bytes(b"\x00garbage" * 64)
    code, out, err = _cli(capsys, "feedback", "export", "--db", str(db))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("accls: error:")
    assert kind != "missing" or not db.exists()


def test_cli_path_follows_env_var(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ACCLS_FEEDBACK_DB", str(tmp_path / "fb.sqlite3"))
    assert _cli(capsys, "feedback", "path") == (0, f"{tmp_path / 'fb.sqlite3'}\n", "")


def test_cli_export_refuses_to_overwrite_the_database(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FeedbackStore(db) as store:
        _apply(store)
    argv = ("feedback", "export", "--db", str(db), "-o", str(db), "--force")
    code, _, err = _cli(capsys, *argv)
    assert code == 2
    assert "feedback database itself" in err
    with FeedbackStore(db) as store:
        assert len(store.applied()) == 1


# ----- export opens the database read-only ------------------------------------------


def test_cli_export_of_an_empty_file_leaves_it_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "feedback.sqlite3"
    db.write_bytes(b"")
    code, out, err = _cli(capsys, "feedback", "export", "--db", str(db))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "not a feedback database" in err
    assert db.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["feedback.sqlite3"]


def test_cli_export_does_not_wait_on_a_writer(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FeedbackStore(db) as store:
        _apply(store)
        writer = sqlite3.connect(db, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE applied SET pragma = 'uncommitted'")
        try:
            start = time.monotonic()
            code, out, err = _cli(capsys, "feedback", "export", "--db", str(db))
            elapsed = time.monotonic() - start
        finally:
            writer.execute("ROLLBACK")
            writer.close()
    assert code == 0, err
    assert elapsed < 2.0
    assert json.loads(out)["suggested"] == PRAGMA


def test_cli_export_reads_a_copy_on_a_read_only_mount(
    tmp_path: Path, need: Callable[[str], str]
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    with FeedbackStore(folder / "fb.sqlite3") as store:
        _apply(store)
    before = sorted(p.name for p in folder.iterdir())
    # A read-only bind mount refuses writes even to root, unlike file modes.
    command = (
        f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && "
        f"{sys.executable} -m accls feedback export --db {folder / 'fb.sqlite3'}"
    )
    unshare = need("unshare")
    if subprocess.run([unshare, "-rm", "true"], check=False).returncode != 0:
        pytest.skip("no user namespaces here")
    proc = subprocess.run(
        [unshare, "-rm", "sh", "-c", command],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server")},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["suggested"] == PRAGMA
    assert sorted(p.name for p in folder.iterdir()) == before
