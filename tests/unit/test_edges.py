"""Inputs at the edges: special files, unparsable text, other languages."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from accls.frontend import parse_source
from support.cli import run_accls

FIFO_TIMEOUT_S = 30.0
SAXPY = """\
#include "saxpy.h"
void saxpy(int n, float s, const float *restrict x, float *restrict y) {
  for (int i = 0; i < n; i++) {
    y[i] = s * x[i] + y[i];
  }
}
int main(void) { return 0; }
"""


def _one_line_error(stderr: str, *words: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("accls: error:")
    for word in words:
        assert word in lines[0]


@pytest.mark.parametrize("command", ["suggest", "annotate", "check", "verify"])
def test_a_fifo_is_refused_before_it_is_opened(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "loop.c"
    os.mkfifo(fifo)
    # Without the check, open() waits for a writer that never comes.
    proc = run_accls(command, str(fifo), timeout=FIFO_TIMEOUT_S)
    assert proc.returncode == 2
    _one_line_error(proc.stderr, "FIFO")


def test_a_character_device_is_refused(tmp_path: Path) -> None:
    proc = run_accls("suggest", "/dev/zero", timeout=FIFO_TIMEOUT_S)
    assert proc.returncode == 2
    _one_line_error(proc.stderr, "character device")


@pytest.mark.parametrize("option", ["--stdin", "--data"])
def test_verify_refuses_a_fifo_as_input(tmp_path: Path, option: str) -> None:
    src = tmp_path / "saxpy.c"
    src.write_text(SAXPY.replace('#include "saxpy.h"\n', ""))
    fifo = tmp_path / "input.txt"
    os.mkfifo(fifo)
    proc = run_accls("verify", str(src), option, str(fifo), timeout=FIFO_TIMEOUT_S)
    assert proc.returncode == 2
    _one_line_error(proc.stderr, "FIFO")


def test_a_fifo_named_like_an_included_header_is_skipped(tmp_path: Path) -> None:
    src = tmp_path / "saxpy.c"
    src.write_text(SAXPY)
    os.mkfifo(tmp_path / "saxpy.h")
    proc = run_accls("suggest", "--no-validate", str(src), timeout=FIFO_TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr
    assert "#pragma acc parallel loop" in proc.stdout


UNTERMINATED = """\
void f(double *a, const double *restrict b, int n) {
  for (int i = 0; i < n; i++) a[i] = b[i];
  /* the comment below never ends
  for (int j = 0; j < n; j++) a[j] = 0;
}
"""


def test_a_loop_inside_an_unterminated_comment_is_not_code() -> None:
    source = parse_source(UNTERMINATED, "f.c")
    assert [loop.line for loop in source.nests] == [2]
    assert any(e.line == 3 for e in source.errors)


def test_comment_openers_inside_strings_and_line_comments_are_not_comments() -> None:
    text = (
        "void f(double *a, int n) {\n  char *s = \"/*\"; char c = '/'; // /* x\n"
        "  for (int i = 0; i < n; i++) a[i] = 0; /* closed */\n}\n"
    )
    source = parse_source(text, "f.c")
    assert [loop.line for loop in source.nests] == [3]
    assert source.errors == ()


def test_suggest_gives_no_pragma_inside_an_unterminated_comment(
    tmp_path: Path,
) -> None:
    src = tmp_path / "f.c"
    src.write_text(UNTERMINATED)
    proc = run_accls("suggest", "--no-validate", "--format", "json", str(src))
    assert proc.returncode == 0, proc.stderr
    assert [loop["line"] for loop in json.loads(proc.stdout)] == [2]
    assert "syntax errors" in proc.stderr


@pytest.mark.parametrize(("name", "language"), [("k.cu", "CUDA")])
def test_check_says_what_it_did_not_check(
    tmp_path: Path, name: str, language: str
) -> None:
    src = tmp_path / name
    src.write_text("int main(void) { return 0; }\n")
    proc = run_accls("check", str(src))
    assert proc.returncode == 2
    _one_line_error(proc.stderr, "not checked", f"{language} is not supported yet")


def test_check_refuses_c_under_a_fortran_name(tmp_path: Path) -> None:
    src = tmp_path / "k.f90"
    src.write_text("int main(void) {\n  return 0;\n}\n")
    proc = run_accls("check", str(src))
    assert proc.returncode == 2
    _one_line_error(proc.stderr, "looks like C, not Fortran", "not checked")


@pytest.mark.parametrize(
    ("name", "text", "warning"),
    [
        ("m.cpp", "export module m;\nexport void f(double *a, int n);\n", "module"),
        (
            "c.cpp",
            "#include <stdlib.h>\nvoid f(int n) {\n  double *new = malloc(8);\n"
            "  for (int i = 0; i < n; i++) new[0] = i;\n}\n",
            "rename it .c",
        ),
    ],
)
def test_check_warns_when_a_file_is_not_the_cpp_its_name_says(
    tmp_path: Path, name: str, text: str, warning: str
) -> None:
    src = tmp_path / name
    src.write_text(text)
    proc = run_accls("check", str(src))
    assert proc.returncode == 0, proc.stderr
    [line] = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert line.startswith("accls: warning:")
    assert warning in line
