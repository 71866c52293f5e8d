"""The offload compile check's compiler probes run once per compiler binary."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from accls.suggest import Dialect, Gpu
from accls.validation import offload


def _fake_gcc(folder: Path, log: Path) -> Path:
    """A `gcc` that logs each call and has no offload compiler installed."""
    script = folder / "gcc"
    script.write_text(f'#!/bin/sh\necho run >> "{log}"\necho accel/x/mkoffload\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_a_probe_is_asked_once_per_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "calls"
    script = _fake_gcc(tmp_path, log)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    for _ in range(3):
        check = offload.offload_check("gcc", Dialect.OPENACC, Gpu.NVIDIA)
        assert check.flags == ()
        assert check.skipped is not None
        assert "nvptx-none" in check.skipped
    assert log.read_text().count("run") == 1
    # A new compiler binary (another modification time) is asked again.
    os.utime(script, ns=(1, 1))
    offload.offload_check("gcc", Dialect.OPENACC, Gpu.NVIDIA)
    assert log.read_text().count("run") == 2
