"""gcc for tests: the syntax check of C text, and building and running a program."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["build_program", "run_program", "syntax_check"]


def syntax_check(
    gcc: str, text: str, flag: str, folder: Path
) -> subprocess.CompletedProcess[str]:
    """`gcc -fsyntax-only FLAG` on `text`, written to FOLDER/unit.c."""
    source = folder / "unit.c"
    source.write_text(text, encoding="utf-8")
    return subprocess.run(
        [gcc, "-fsyntax-only", flag, str(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def build_program(gcc: str, src: Path, exe: Path, *flags: str) -> None:
    """Build `src` (gnu11, -O0, FLAGS, -lm) into `exe`; fail the test on an error."""
    proc = subprocess.run(
        [gcc, "-std=gnu11", "-O0", *flags, str(src), "-o", str(exe), "-lm"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr


def run_program(exe: Path, threads: int | None = None) -> str:
    """What `exe` prints (on `threads` OpenMP threads); fail the test on an error."""
    env = None
    if threads is not None:
        env = {
            **os.environ,
            "OMP_NUM_THREADS": str(threads),
            "OMP_WAIT_POLICY": "passive",
        }
    proc = subprocess.run(
        [str(exe)], capture_output=True, text=True, check=False, timeout=30, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
