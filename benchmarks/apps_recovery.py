"""Recovery of the experts' parallel loops in a whole application.

Strip every `#pragma omp`/`#pragma acc` of the application's C files, remember the
loops the experts' loop constructs sat on, run `accls suggest` on the stripped
files and say, loop by loop, whether accls proposes a parallel pragma again.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from source_edit import find_for, pragma_blocks, strip_blocks

# Construct words that make a pragma a loop construct: the loop below it runs in
# parallel (or is divided among threads, lanes or teams).
_LOOP_WORDS = frozenset({"for", "loop", "distribute", "simd", "taskloop"})
_NAME = re.compile(r"`[^`]*`")
_NUMBER = re.compile(r"\b\d+\b")


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpertLoop:
    """A loop an expert parallelized, located in the stripped file."""

    file: str  # relative to the application folder
    line: int  # 1-based line of `for` in the stripped file
    pragma: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StrippedFile:
    """A C file without its acc/omp pragmas, and the expert loops it lost."""

    file: str
    text: str
    loops: tuple[ExpertLoop, ...]
    pragmas: int  # acc/omp pragma blocks removed


def _directive(lines: list[str], start: int, end: int) -> str:
    text = " ".join(line.rstrip().rstrip("\\") for line in lines[start:end])
    return " ".join(text.split())


def strip_file(file: str, text: str) -> StrippedFile:
    """Remove every acc/omp pragma; keep where the loop constructs were."""
    lines = text.split("\n")
    blocks = [b for b in pragma_blocks(lines) if b.dialect in ("acc", "omp")]
    stripped = strip_blocks(text, blocks)
    loops: dict[int, ExpertLoop] = {}
    for block in blocks:
        directive = _directive(lines, block.start, block.end)
        words = set(re.findall(r"[a-z_]+", directive.split("(")[0]))
        if not words & _LOOP_WORDS:
            continue
        # The statement after the pragma must be the loop (other pragmas between
        # are gone); `find_for` skips comments and preprocessor lines only.
        new_line = stripped.map_line(block.end + 1)
        at = find_for(stripped.text, new_line)
        if at is None or not _only_blank_between(stripped.text, new_line, at[0]):
            continue
        loops.setdefault(at[0], ExpertLoop(file=file, line=at[0], pragma=directive))
    return StrippedFile(
        file=file,
        text=stripped.text,
        loops=tuple(loops[k] for k in sorted(loops)),
        pragmas=len(blocks),
    )


def _only_blank_between(text: str, first: int, for_line: int) -> bool:
    """No code between line `first` and the `for` line (comments, `{` aside)."""
    between = text.split("\n")[first - 1 : for_line - 1]
    for line in between:
        code = line.strip()
        if code and not code.startswith(("//", "/*", "*", "#")):
            return False
    return True


def reason_class(reason: str) -> str:
    """A reason with names and numbers blanked, to count reasons of one kind."""
    return _NUMBER.sub("N", _NAME.sub("`_`", reason)).strip()


def run_suggest(
    accls: Path, folder: Path, files: list[str], timeout: float
) -> tuple[list[dict[str, Any]], str]:
    """`accls suggest --format json --model openmp` on the files; (objects, error).

    The app's folder is the project: calls of its other files are summarised.
    """
    cmd = [str(accls), "suggest", "--format", "json", "--model", "openmp"]
    cmd += ["--target", "cpu", "-I", str(folder)]
    cmd += ["--project", str(folder), "--index-cache", str(folder / ".accls-index")]
    cmd += files
    try:
        proc = subprocess.run(
            cmd, cwd=folder, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return [], f"accls suggest: timeout after {timeout:.0f} s"
    try:
        objects = json.loads(proc.stdout)
    except ValueError:
        return [], f"accls suggest rc={proc.returncode}: {proc.stderr.strip()[-300:]}"
    if not isinstance(objects, list):
        return [], "accls suggest: output is not a JSON array"
    return objects, ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What accls said about one expert loop."""

    loop: ExpertLoop
    status: str  # recovered | collapsed | refused | enclosed | missed
    reason: str
    ours: str  # our pragma, "" when none
    profitable: bool | None = None  # the cost model's verdict on our pragma


def judge(
    stripped: list[StrippedFile], objects: list[dict[str, Any]]
) -> tuple[list[Outcome], list[dict[str, Any]]]:
    """Each expert loop's outcome, and our pragmas on loops no expert annotated."""
    # Loops sharing a line (`for (j..) for (i..)`): the expert's pragma is above
    # the first, the outermost, which comes first in the output.
    by_place: dict[tuple[str, int], dict[str, Any]] = {}
    for o in objects:
        by_place.setdefault((str(o.get("file")), int(o.get("line", 0))), o)
    collapsed = {
        (str(o.get("file")), int(line))
        for o in objects
        if o.get("pragma")
        for line in o.get("collapsed_lines") or ()
    }
    outcomes: list[Outcome] = []
    for sf in stripped:
        for loop in sf.loops:
            obj = by_place.get((sf.file, loop.line))
            if obj is not None and obj.get("pragma"):
                outcomes.append(
                    Outcome(
                        loop=loop,
                        status="recovered",
                        reason="",
                        ours=str(obj["pragma"]),
                        profitable=obj.get("profitable"),
                    )
                )
            elif (sf.file, loop.line) in collapsed:
                outcomes.append(
                    Outcome(loop=loop, status="collapsed", reason="", ours="")
                )
            elif obj is not None:
                reasons = obj.get("reasons") or ["(no reason given)"]
                outcomes.append(
                    Outcome(
                        loop=loop, status="refused", reason=str(reasons[0]), ours=""
                    )
                )
            else:
                outer = _enclosing(objects, sf.file, loop.line)
                status = "enclosed" if outer is not None else "missed"
                why = (
                    f"inside our parallel loop at line {outer}"
                    if outer is not None
                    else "no result for this loop (front end or nested in a refused "
                    "loop's sequential body)"
                )
                outcomes.append(Outcome(loop=loop, status=status, reason=why, ours=""))
    expert_places = {(o.loop.file, o.loop.line) for o in outcomes}
    spans = [
        (str(o.get("file")), int(o["line"]), int(o.get("end_line", o["line"])))
        for o in objects
        if (str(o.get("file")), int(o.get("line", 0))) in expert_places
    ]
    extras = []
    for obj in objects:
        place = (str(obj.get("file")), int(obj.get("line", 0)))
        if not obj.get("pragma") or place in expert_places:
            continue
        inside = any(f == place[0] and a < place[1] <= b for f, a, b in spans)
        extras.append({**obj, "inside_expert_nest": inside})
    return outcomes, extras


def _enclosing(objects: list[dict[str, Any]], file: str, line: int) -> int | None:
    for obj in objects:
        start = int(obj.get("line", 0))
        if (
            obj.get("pragma")
            and str(obj.get("file")) == file
            and start < line <= int(obj.get("end_line", start))
        ):
            return start
    return None


def tally(outcomes: list[Outcome]) -> dict[str, Any]:
    """Counts per status and per reason class (refused and missed loops)."""
    statuses = Counter(o.status for o in outcomes)
    reasons = Counter(
        reason_class(o.reason) for o in outcomes if o.status in ("refused", "missed")
    )
    return {"statuses": dict(statuses), "reasons": dict(reasons)}
