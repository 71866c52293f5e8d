"""Run the accls CLI in a fresh interpreter, from the repository root."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["CLI_TIMEOUT_S", "ROOT", "run_accls"]

ROOT = Path(__file__).resolve().parents[2]
CLI_TIMEOUT_S = 120.0


def run_accls(
    *args: str, timeout: float = CLI_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Run `python -m accls ARGS` from the repository root, in a fresh interpreter."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "server"), env.get("PYTHONPATH", "")) if p
    )
    return subprocess.run(
        [sys.executable, "-m", "accls", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
