"""Run the accls CLI in a fresh interpreter, from the repository root."""

from __future__ import annotations

import contextlib
import os
import resource
import subprocess
import sys
from pathlib import Path

__all__ = ["CLI_TIMEOUT_S", "ROOT", "run_accls"]

ROOT = Path(__file__).resolve().parents[2]
CLI_TIMEOUT_S = 120.0


def run_accls(
    *args: str,
    timeout: float = CLI_TIMEOUT_S,
    stdout_path: str | None = None,
    file_limit: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `python -m accls ARGS` from the repository root, in a fresh interpreter.

    `stdout_path` sends stdout to that file (`/dev/full`) instead of capturing
    it; `file_limit` sets RLIMIT_FSIZE (`ulimit -f`, in bytes) for the run.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "server"), env.get("PYTHONPATH", "")) if p
    )

    def limit() -> None:
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    with contextlib.ExitStack() as stack:
        stdout = (
            stack.enter_context(open(stdout_path, "w"))
            if stdout_path is not None
            else subprocess.PIPE
        )
        return subprocess.run(
            [sys.executable, "-m", "accls", *args],
            cwd=ROOT,
            env=env,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
            check=False,
            preexec_fn=limit if file_limit is not None else None,
        )
