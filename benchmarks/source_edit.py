"""Strip pragmas from C text, map lines, and find the loops pragmas sat on."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_PRAGMA = re.compile(r"^\s*#\s*pragma\s+(\w+)")
_CONDITIONAL = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b")
_FOR = re.compile(r"for\s*\(")


@dataclass(frozen=True, slots=True)
class PragmaBlock:
    """A `#pragma` line plus its backslash continuations (0-based, end exclusive)."""

    start: int
    end: int
    dialect: str  # first word after `pragma`: "acc", "omp", "once", ...


@dataclass(frozen=True, slots=True)
class Stripped:
    """Text with some pragma blocks removed and the old->new line map."""

    text: str
    new_line: tuple[int, ...]  # 1-based old line -> 1-based new line (index 0 unused)

    def map_line(self, old: int) -> int:
        """New line of old line `old`; a removed line maps to the next kept line."""
        return self.new_line[min(old, len(self.new_line) - 1)]


def pragma_blocks(lines: list[str]) -> list[PragmaBlock]:
    """Every `#pragma` in the file with its continuation lines."""
    blocks: list[PragmaBlock] = []
    i = 0
    while i < len(lines):
        match = _PRAGMA.match(lines[i])
        if match is None:
            i += 1
            continue
        end = i + 1
        while lines[end - 1].rstrip().endswith("\\") and end < len(lines):
            end += 1
        blocks.append(PragmaBlock(i, end, match.group(1)))
        i = end
    return blocks


def strip_blocks(text: str, blocks: Iterable[PragmaBlock]) -> Stripped:
    """Remove the given blocks, keeping every other line as it was."""
    lines = text.split("\n")
    removed: set[int] = set()
    for block in blocks:
        removed.update(range(block.start, block.end))
    kept = [line for i, line in enumerate(lines) if i not in removed]
    # Old line i+1 becomes (kept lines before it) + 1: its own new number when kept,
    # the next kept line's number when removed.
    new_line = [0]
    kept_before = 0
    for i in range(len(lines)):
        new_line.append(kept_before + 1)
        kept_before += i not in removed
    new_line.append(kept_before + 1)
    return Stripped("\n".join(kept), tuple(new_line))


def _skip_noise(text: str, pos: int) -> int:
    """Skip a comment, literal or preprocessor line at `pos`; return the new pos."""
    if text.startswith("//", pos):
        end = text.find("\n", pos)
        return len(text) if end < 0 else end
    if text.startswith("/*", pos):
        end = text.find("*/", pos + 2)
        return len(text) if end < 0 else end + 2
    quote = text[pos]
    if quote in "\"'":
        i = pos + 1
        while i < len(text) and text[i] != quote and text[i] != "\n":
            i += 2 if text[i] == "\\" else 1
        return i + 1
    if quote == "#" and text[text.rfind("\n", 0, pos) + 1 : pos].strip() == "":
        i = pos
        while True:
            end = text.find("\n", i)
            if end < 0:
                return len(text)
            if not text[i:end].rstrip().endswith("\\"):
                return end
            i = end + 1
    return pos


def find_for(text: str, from_line: int) -> tuple[int, int] | None:
    """1-based (line, byte column) of the first `for (` keyword at/after a line."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    if from_line - 1 >= len(line_starts):
        return None
    pos = line_starts[from_line - 1]
    while pos < len(text):
        skipped = _skip_noise(text, pos)
        if skipped != pos:
            pos = skipped
            continue
        if text[pos] == "f":
            before = text[pos - 1] if pos else " "
            if _FOR.match(text, pos) and not (before.isalnum() or before == "_"):
                row = text.count("\n", 0, pos)
                col = len(text[line_starts[row] : pos].encode("utf-8")) + 1
                return row + 1, col
        pos += 1
    return None


def loops_right_after_pragmas(lines: list[str], blocks: list[PragmaBlock]) -> set[int]:
    """0-based lines of `for` statements that directly follow an acc/omp pragma.

    Comments, other pragmas and preprocessor conditionals may sit between them: a
    file that spells the pragma two ways under `#if`/`#else` annotates the loop after
    the `#endif`.
    """
    annotated: set[int] = set()
    for block in blocks:
        if block.dialect not in ("acc", "omp"):
            continue
        i = block.end
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped == "" or stripped.startswith(("//", "/*", "*")):
                i += 1
            elif _CONDITIONAL.match(lines[i]):
                i += 1  # `#else` between two spellings of the pragma, `#endif` after
            elif _PRAGMA.match(lines[i]):
                i += 1
                while lines[i - 1].rstrip().endswith("\\") and i < len(lines):
                    i += 1
            else:
                break
        if i < len(lines) and re.match(r"\s*for\s*\(", lines[i]):
            annotated.add(i)
    return annotated


# A pragma that keeps its loop on one thread: OpenACC `loop seq` / `serial`, an
# OpenMP `simd` alone (vector lanes of one thread), `ordered`, `unroll`, `tile`.
_SEQUENTIAL = re.compile(
    r"^\s*#\s*pragma\s+(?:acc\s+(?:(?:parallel\s+|kernels\s+)?loop\b.*\bseq\b|serial\b)"
    r"|omp\s+(?:simd|ordered|unroll|tile)\b)"
)


def sequential_loops(lines: list[str], blocks: list[PragmaBlock]) -> set[int]:
    """0-based lines of loops whose acc/omp pragmas all keep them on one thread."""
    text = {b: " ".join(lines[b.start : b.end]).replace("\\", " ") for b in blocks}
    sequential = [b for b in blocks if _SEQUENTIAL.match(text[b])]
    parallel = [
        b for b in blocks if b.dialect in ("acc", "omp") and b not in sequential
    ]
    return loops_right_after_pragmas(lines, sequential) - loops_right_after_pragmas(
        lines, parallel
    )
