"""A cgroup v2 memory bound for a whole process tree, where the machine allows one.

RLIMIT_AS bounds each process on its own: three children may each use the
limit. A child cgroup with `memory.max` bounds them together. It needs the
unified hierarchy with the memory controller enabled for our own cgroup's
children (a container's root cgroup, or a delegated systemd scope); without
one, the report says that the limit is per process.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["TreeCgroup", "tree_cgroup"]

CGROUP_ROOT = Path("/sys/fs/cgroup")
MEMBERSHIP = Path("/proc/self/cgroup")
_counter = itertools.count()
_REMOVE_TRIES = 50


@dataclass(frozen=True, slots=True)
class TreeCgroup:
    """A cgroup holding one run's processes, with its memory bound."""

    path: Path
    memory_bytes: int

    def enter(self) -> Callable[[], None]:
        """A preexec_fn moving the child (and all it starts) into the cgroup."""
        procs = str(self.path / "cgroup.procs")

        def move() -> None:
            # An exception here would surface as a traceback from Popen; the
            # per-process RLIMIT_AS still bounds the run if the move fails.
            with contextlib.suppress(OSError), open(procs, "w") as fh:
                fh.write("0")

        return move

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of the run for exceeding the bound."""
        try:
            events = (self.path / "memory.events").read_text()
        except OSError:
            return False
        counts = dict(line.split() for line in events.splitlines() if " " in line)
        return int(counts.get("oom_kill", "0")) > 0 or int(counts.get("oom", "0")) > 0


def _own_cgroup(root: Path, membership: Path) -> Path | None:
    """Our cgroup in the unified hierarchy, if that is what `root` holds."""
    if not (root / "cgroup.controllers").is_file():
        return None
    try:
        lines = membership.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::"):
            return root / line[3:].lstrip("/")
    return None


def _usable_parent(root: Path, membership: Path) -> Path | None:
    own = _own_cgroup(root, membership)
    if own is None:
        return None
    try:
        enabled = (own / "cgroup.subtree_control").read_text().split()
    except OSError:
        return None
    return own if "memory" in enabled and os.access(own, os.W_OK) else None


def _remove(path: Path) -> None:
    # The last processes of the run may take a moment to leave.
    for _ in range(_REMOVE_TRIES):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)


@contextlib.contextmanager
def tree_cgroup(
    memory_bytes: int,
    max_processes: int,
    root: Path = CGROUP_ROOT,
    membership: Path = MEMBERSHIP,
) -> Iterator[TreeCgroup | None]:
    """A fresh child cgroup bounding memory (and processes); None if unavailable."""
    parent = _usable_parent(root, membership)
    if parent is None:
        yield None
        return
    path = parent / f"accls-verify-{os.getpid()}-{next(_counter)}"
    try:
        path.mkdir()
        (path / "memory.max").write_text(str(memory_bytes))
        with contextlib.suppress(OSError):
            (path / "memory.swap.max").write_text("0")
        with contextlib.suppress(OSError):
            (path / "pids.max").write_text(str(max_processes))
    except OSError:
        _remove(path)
        yield None
        return
    try:
        yield TreeCgroup(path, memory_bytes)
    finally:
        _remove(path)
