"""Shrink a failing generated program by deleting statements, loops and functions.

A greedy pass over the program tree, parents first (whole kernels and functions go
before single statements), repeated until no deletion keeps the failure. A
candidate counts only when it still builds and runs cleanly under gcc's address
and undefined-behaviour sanitizers and does not read uninitialised locals, so
the shrunk program stays well defined.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from differential.oracle import Outcome, Tools, check
from differential.tree import Line, Program, paths, remove

__all__ = ["same_failure", "shrink", "well_defined"]


def _kept(program: Program, path: tuple[int, ...]) -> bool:
    """Preprocessor lines stay: without `#include <stdio.h>` printf is implicit."""
    node = program.nodes[path[0]]
    return len(path) == 1 and isinstance(node, Line) and node.text.startswith("#")


# Deletions can leave a function without its `return`: reject those outright.
_STRICT = ("-Werror=return-type", "-Werror=implicit-function-declaration")


def well_defined(text: str, work: Path, tools: Tools) -> bool:
    """Builds and runs clean under ASan and UBSan, and prints the same whether
    uninitialised locals start as zeros or as a pattern (sanitizers miss those),
    with no non-void function falling off its end."""
    src = work / "ub.c"
    src.write_text(text, encoding="utf-8")
    outputs = []
    for init, extra in (
        ("zero", ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]),
        ("pattern", []),
    ):
        exe = work / f"ub-{init}"
        flags = ["-O1", f"-ftrivial-auto-var-init={init}", *_STRICT, *extra]
        try:
            built = subprocess.run(
                [tools.gcc, "-std=gnu11", *flags, str(src), "-o", str(exe), "-lm"],
                capture_output=True,
                timeout=120,
                check=False,
            )
            if built.returncode != 0:
                return False
            ran = subprocess.run(
                [str(exe)], capture_output=True, text=True, timeout=30, check=False
            )
        except subprocess.TimeoutExpired:
            return False
        if ran.returncode != 0:
            return False
        outputs.append(ran.stdout)
    return outputs[0] == outputs[1]


def same_failure(found: Outcome, tools: Tools) -> Callable[[Program], bool]:
    """A predicate: the program fails like `found` (same status and model)."""
    model = found.reason.split()[0] if found.reason else ""

    def failing(program: Program) -> bool:
        text = program.text()
        with tempfile.TemporaryDirectory(prefix="accls-shrink-") as tmp:
            work = Path(tmp)
            if not well_defined(text, work, tools):
                return False
            got = check(text, work, tools, races=found.status == "race")
        return got.status == found.status and got.reason.startswith(model)

    return failing


def shrink(
    program: Program, failing: Callable[[Program], bool], budget_s: float = 600.0
) -> Program:
    """The smallest program reachable by deletions for which `failing` holds."""
    deadline = time.monotonic() + budget_s
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        index = 0
        while time.monotonic() < deadline:
            todo = list(paths(program.nodes))
            if index >= len(todo):
                break
            candidate = Program(remove(program.nodes, todo[index]))
            if _kept(program, todo[index]):
                index += 1
            elif failing(candidate):
                program, changed = candidate, True
            else:
                index += 1
    return program
