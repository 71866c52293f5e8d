"""The loop markers of a harm blind batch, and which marked loops a pragma parallelises.

A program marks each loop an expert would run in parallel with
`/* expert: parallel */` and each loop that looks parallel but is not with
`/* trap: REASON */`, on the line of the loop's header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Marker", "markers", "parallelised_rows"]

_MARK = re.compile(r"/\*\s*(expert|trap):\s*(.*?)\s*\*/")
_FOR = re.compile(r"\bfor\s*\(")
_COLLAPSE = re.compile(r"\bcollapse\s*\(\s*(\d+)")
# A pragma that shares a loop's iterations out (not `parallel` alone, which a
# hoisted region puts on a sequential loop that every thread runs whole).
_SHARES = re.compile(r"^#pragma\s+omp\b.*\b(for|loop|simd|taskloop|distribute)\b")


@dataclass(frozen=True, slots=True)
class Marker:
    """One marked loop: its 0-based row, `expert` or `trap`, and the reason."""

    row: int
    kind: str
    reason: str


def markers(text: str) -> list[Marker]:
    """The marked loops of a program, in order."""
    found = []
    for row, line in enumerate(text.splitlines()):
        hit = _MARK.search(line)
        if hit is not None:
            found.append(Marker(row, hit.group(1), hit.group(2)))
    return found


def parallelised_rows(annotated: str) -> set[int]:
    """Rows of `annotated` whose loop a pragma shares out (`collapse` included)."""
    lines = annotated.splitlines()
    rows: set[int] = set()
    for row, line in enumerate(lines):
        if not _FOR.search(line):
            continue
        above = row - 1
        while above >= 0 and lines[above].strip().startswith("#pragma"):
            pragma = lines[above].strip()
            if _SHARES.match(pragma):
                rows.add(row)
                depth = _COLLAPSE.search(pragma)
                inner = [r for r in range(row + 1, len(lines)) if _FOR.search(lines[r])]
                rows.update(inner[: int(depth.group(1)) - 1] if depth else ())
            above -= 1
    return rows
