"""The `--accls PATH` option of the benchmarks: the CLI they run, checked once."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

__all__ = ["DEFAULT_ACCLS", "accls_executable"]

DEFAULT_ACCLS = Path(__file__).resolve().parent.parent / ".venv" / "bin" / "accls"


def accls_executable(text: str) -> Path:
    """`text` as an absolute path to a runnable file, or a one-line usage error.

    Absolute, because the benchmarks run it from their own work folders.
    """
    path = Path(text).expanduser().resolve()
    if not path.is_file() or not os.access(path, os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: no runnable accls there")
    return path
