"""Writing a user's file: a failed write (full disk, file limit) never loses it."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest
from accls.files import WriteError, replace_file
from support.cli import run_accls

SAXPY = """\
void saxpy(int n, float s, const float *restrict x, float *restrict y) {
  for (int i = 0; i < n; i++) {
    y[i] = s * x[i] + y[i];
  }
}
"""
BOM = b"\xef\xbb\xbf"


def _failing_write(monkeypatch: pytest.MonkeyPatch, after: int) -> None:
    """Make os.write fail with ENOSPC after `after` successful calls."""
    real = os.write
    calls = [0]

    def write(fd: int, data: bytes | memoryview) -> int:
        calls[0] += 1
        if calls[0] > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data[:7])  # short writes, as on a nearly full disk

    monkeypatch.setattr(os, "write", write)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if "accls" in p.name)


def test_replace_keeps_mode_and_symlink(tmp_path: Path) -> None:
    target = tmp_path / "a.c"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    link = tmp_path / "link.c"
    link.symlink_to(target)
    replace_file(str(link), b"new\n")
    assert link.is_symlink()
    assert target.read_bytes() == b"new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert _leftovers(tmp_path) == []


def test_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    mask = os.umask(0o027)
    try:
        replace_file(str(tmp_path / "out.c"), b"x\n")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "out.c").stat().st_mode) == 0o640


def test_replace_keeps_hard_links(tmp_path: Path) -> None:
    target = tmp_path / "a.c"
    target.write_bytes(b"old\n")
    other = tmp_path / "b.c"
    os.link(target, other)
    inode = target.stat().st_ino
    replace_file(str(target), b"a longer new text\n")
    assert other.read_bytes() == b"a longer new text\n"
    assert target.stat().st_ino == inode
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("links", [1, 2])
@pytest.mark.parametrize("after", [0, 1, 3])
def test_failed_write_leaves_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, links: int, after: int
) -> None:
    target = tmp_path / "a.c"
    original = b"the original text, several short writes long\n"
    target.write_bytes(original)
    if links == 2:
        os.link(target, tmp_path / "b.c")
    _failing_write(monkeypatch, after)
    with pytest.raises(WriteError, match=r"a\.c: cannot write"):
        replace_file(str(target), b"the new text, longer than the original one\n" * 3)
    monkeypatch.undo()
    assert target.read_bytes() == original
    assert _leftovers(tmp_path) == []


def test_refuses_a_read_only_file(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write any file")
    target = tmp_path / "a.c"
    target.write_bytes(b"old\n")
    target.chmod(0o444)
    with pytest.raises(WriteError, match="Permission denied"):
        replace_file(str(target), b"new\n")
    assert target.read_bytes() == b"old\n"


def test_refuses_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "out.c"
    os.mkfifo(fifo)
    with pytest.raises(WriteError, match="FIFO"):
        replace_file(str(fifo), b"new\n")


def test_annotate_in_place_keeps_the_bom(tmp_path: Path) -> None:
    src = tmp_path / "bom.c"
    src.write_bytes(BOM + SAXPY.encode())
    proc = run_accls("annotate", "--no-validate", "--in-place", str(src))
    assert proc.returncode == 0, proc.stderr
    data = src.read_bytes()
    assert data.startswith(BOM)
    assert b"#pragma acc parallel loop" in data


@pytest.mark.parametrize("links", [1, 2])
def test_annotate_in_place_under_a_file_limit_keeps_the_file(
    tmp_path: Path, links: int
) -> None:
    src = tmp_path / "saxpy.c"
    original = SAXPY.encode()
    src.write_bytes(original)
    if links == 2:
        os.link(src, tmp_path / "other.c")
    proc = run_accls(
        "annotate", "--no-validate", "--in-place", str(src), file_limit=len(original)
    )
    assert proc.returncode == 2
    assert src.read_bytes() == original
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("accls: error:")
    assert "File too large" in lines[0]
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "args",
    [
        ("suggest", "--no-validate"),
        ("suggest", "--no-validate", "--format", "json"),
        ("annotate", "--no-validate"),
        ("check",),
        ("--version",),
        ("suggest", "--help"),
    ],
)
@pytest.mark.parametrize("where", ["full", "limit"])
def test_output_that_cannot_be_written_is_one_line(
    tmp_path: Path, args: tuple[str, ...], where: str
) -> None:
    src = tmp_path / "saxpy.c"
    src.write_text(SAXPY.replace("for", "#pragma acc parallel loop\n  for"))
    if where == "full":
        if not os.path.exists("/dev/full"):
            pytest.skip("no /dev/full here")
        proc = run_accls(*args, str(src), stdout_path="/dev/full")
    else:
        proc = run_accls(
            *args, str(src), stdout_path=str(tmp_path / "out"), file_limit=10
        )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert lines == [lines[0]], proc.stderr
    assert lines[0].startswith("accls: error: cannot write the output")
