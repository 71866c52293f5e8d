"""gcc's syntax check of C text, for tests that apply pragmas and compile."""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["syntax_check"]


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
