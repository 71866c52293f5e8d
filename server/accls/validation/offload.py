"""The compile check's offload flags for the GPU the user named, when installed.

gcc compiles for a GPU with `-foffload=nvptx-none` or `-foffload=amdgcn-amdhsa`
(its `accel/<target>/mkoffload` must be installed), nvc with `-gpu=` (NVIDIA
only), clang with `-fopenmp-targets=` (OpenMP only: clang has no OpenACC).
Without the matching compiler the check runs for the host alone, and says so.
The probes run once per compiler binary (its path and modification time) and
target: a language server asked again at every resolve reuses the answer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from accls.suggest import Dialect, Gpu

__all__ = ["OffloadCheck", "offload_check"]

_GCC = {Gpu.NVIDIA: "nvptx-none", Gpu.AMD: "amdgcn-amdhsa"}
_CLANG = {Gpu.NVIDIA: "nvptx64-nvidia-cuda", Gpu.AMD: "amdgcn-amd-amdhsa"}


@dataclass(frozen=True, slots=True)
class OffloadCheck:
    """The flags that add a device compile to the check, or why it is skipped."""

    flags: tuple[str, ...] = ()
    skipped: str | None = None  # a note for the user, never an error


def _stamp(cc: str) -> tuple[str, int] | None:
    """The compiler's full path and modification time: the probes' cache key."""
    found = shutil.which(cc)
    if found is None:
        return None
    try:
        return found, os.stat(found).st_mtime_ns
    except OSError:
        return None


def _gcc_has(cc: str, target: str) -> bool:
    """Whether gcc `cc` has the offload compiler for `target` installed."""
    stamp = _stamp(cc)
    return stamp is not None and _gcc_probe(*stamp, target)


def _clang_has(cc: str, target: str) -> bool:
    """Whether clang `cc` accepts OpenMP offloading to `target` here."""
    stamp = _stamp(cc)
    return stamp is not None and _clang_probe(*stamp, target)


@lru_cache(maxsize=32)
def _gcc_probe(found: str, mtime: int, target: str) -> bool:
    del mtime  # the cache key
    try:
        proc = subprocess.run(
            [found, f"-print-prog-name=accel/{target}/mkoffload"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    path = proc.stdout.strip()
    return os.path.isabs(path) and os.access(path, os.X_OK)


@lru_cache(maxsize=32)
def _clang_probe(found: str, mtime: int, target: str) -> bool:
    del mtime  # the cache key
    command = [found, "-fopenmp", f"-fopenmp-targets={target}", "-fsyntax-only"]
    try:
        proc = subprocess.run(
            [*command, "-x", "c", "-"],
            input="int main(void) { return 0; }\n",  # `-` reads C from stdin
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def offload_check(cc: str, dialect: Dialect, gpu: Gpu) -> OffloadCheck:
    """The offload flags for compiler `cc`, `dialect` and `gpu`, or a skip note."""
    if gpu is Gpu.GENERIC:
        return OffloadCheck()
    name = Path(cc).name
    vendor = "NVIDIA" if gpu is Gpu.NVIDIA else "AMD"
    host = f"the {vendor} offload compile check was skipped; checked for the host only"
    if name.startswith(("nvc", "pgcc")):
        if gpu is not Gpu.NVIDIA:
            return OffloadCheck(skipped=f"{name} targets NVIDIA GPUs only: {host}")
        return OffloadCheck(flags=("-gpu=ccall",))
    if "clang" in name:
        if dialect is Dialect.OPENACC:
            return OffloadCheck(skipped=f"{name} has no OpenACC offloading: {host}")
        if _clang_has(cc, _CLANG[gpu]):
            return OffloadCheck(flags=(f"-fopenmp-targets={_CLANG[gpu]}",))
        return OffloadCheck(
            skipped=f"{name} cannot offload to {_CLANG[gpu]} here: {host}"
        )
    if _gcc_has(cc, _GCC[gpu]):
        return OffloadCheck(flags=(f"-foffload={_GCC[gpu]}",))
    return OffloadCheck(
        skipped=f"{name} has no {_GCC[gpu]} offload compiler installed: {host}"
    )
