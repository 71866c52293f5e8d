"""Lines the build skips: `#include`s of branches not taken, and blanking them.

The real preprocessor tells which code lines it compiled (translation_unit);
these turn that into the include lines it skipped and into a text tree-sitter
can parse when both branches of an `#if` hold half a statement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["blank_lines", "untaken_includes"]

_IF = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")
_INCLUDE_LINE = re.compile(r"^\s*#\s*include\b")


def untaken_includes(marked: Sequence[str], active: set[int]) -> frozenset[int]:
    """The `#include` lines of `#if` branches the build did not take.

    No marker shows an include's own line, but one branch of each group is
    taken at most: when another branch of its group holds a compiled line,
    a branch (and all it holds) was skipped. `#if LOOPGEN #include "x.incl"
    #else for (...) ... #endif` with the loop compiled skips the include.
    """
    groups: list[list[tuple[int, int]]] = []  # per open group: (start, end) branches
    closed: list[list[tuple[int, int]]] = []
    starts: list[int] = []
    for number, line in enumerate(marked, start=1):
        found = _IF.match(line)
        if found is None:
            continue
        word = found.group(1)
        if word.startswith("if"):
            groups.append([])
            starts.append(number)
        elif groups:
            groups[-1].append((starts[-1], number))
            starts[-1] = number
            if word == "endif":
                closed.append(groups.pop())
                starts.pop()
    out: set[int] = set()
    for branches in closed:
        taken = [any(a < n < b for n in active) for a, b in branches]
        if not any(taken):
            continue
        for (a, b), hit in zip(branches, taken, strict=True):
            if not hit:
                out.update(
                    n for n in range(a + 1, b) if _INCLUDE_LINE.match(marked[n - 1])
                )
    return frozenset(out)


_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b")


def blank_lines(data: bytes, lines: frozenset[int]) -> bytes:
    """`data` as the build compiles it: skipped lines and `#if` lines blanked.

    The lines a build skips (`#if` branches not taken) may hold code that does
    not parse beside the branch taken, as two headers of one loop
    (`#if A` `for (...) {` `#else` `for (...) {` `#endif`); the conditional
    directives themselves go too, as the preprocessor removes them. Every
    offset is kept.
    """
    out = data.split(b"\n")
    blank = {n - 1 for n in lines if 0 < n <= len(out)}
    directive = False
    for index, line in enumerate(out):
        if directive or _CONDITIONAL.match(line):
            blank.add(index)
            directive = line.rstrip(b"\r").endswith(b"\\")
    for index in blank:
        line = out[index]
        tail = b"\r" if line.endswith(b"\r") else b""
        out[index] = b" " * (len(line) - len(tail)) + tail
    return b"\n".join(out)
