"""Which of the experts' routine directives a loop suggestion could bring back.

accls marks a function `acc routine` / `omp declare target` only when a loop it
offloads calls it. An expert's routine on a function that no loop of the file
reaches (its call sits in a bare `parallel` region, which the strip removes),
or on a function the file does not define (`routine(fmin) seq`, an `extern`
CUDA function), cannot come back from loop suggestions: the benchmark reports
those apart, so that the recall is read on the routines the experts' own
parallel loops reach.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from accls.frontend import Loop, SourceFile, parse_source

__all__ = ["routine_names", "routine_reach"]

_DIRECTIVE = re.compile(
    r"^\s*#\s*pragma\s+(?:acc\s+routine|omp\s+declare\s+target)\b(.*)$"
)
_NAMED = re.compile(r"^\s*\(\s*([A-Za-z_]\w*)\s*\)")
_DECLARATOR = re.compile(r"([A-Za-z_]\w*)\s*\(")
_OMP_END = re.compile(r"^\s*#\s*pragma\s+omp\s+end\s+declare\s+target\b")


def routine_names(text: str) -> list[str]:
    """The function each routine directive of `text` marks ("" when none is found).

    `routine(name)` names it; an unnamed one marks the next declaration, as does
    `declare target` (its first function, up to `end declare target`).
    """
    lines = text.split("\n")
    names: list[str] = []
    for at, line in enumerate(lines):
        found = _DIRECTIVE.match(line)
        if found is None:
            continue
        named = _NAMED.match(found.group(1))
        if named is not None:
            names.append(named.group(1))
            continue
        name = ""
        for later in lines[at + 1 : at + 12]:
            if _OMP_END.match(later):
                break
            if later.lstrip().startswith(("#", "//")) or not later.strip():
                continue
            declarator = _DECLARATOR.search(later)
            if declarator is not None:
                name = declarator.group(1)
                break
        names.append(name)
    return names


def _all_loops(source: SourceFile) -> list[Loop]:
    found: list[Loop] = []
    todo = list(source.nests)
    while todo:
        loop = todo.pop()
        found.append(loop)
        todo.extend(loop.children)
    return sorted(found, key=lambda loop: loop.span.start_byte)


def _called_in_loops(source: SourceFile, pragma_lines: Iterable[int]) -> set[str]:
    """Functions the expert's loops call, directly or through functions they call.

    The expert's loop is the first loop after each of its pragma lines: a loop
    of the host (`main`'s repeat loop around a test) reaches any function.
    """
    loops = _all_loops(source)
    chosen = []
    for line in pragma_lines:
        after = [loop for loop in loops if loop.span.line > line]
        if after:
            chosen.append(after[0])
    reached = {call.name for loop in chosen for call in loop.calls}
    todo = list(reached)
    while todo:
        fn = source.function(todo.pop())
        for call in fn.call_sites if fn is not None else ():
            if call.name not in reached:
                reached.add(call.name)
                todo.append(call.name)
    return reached


def routine_reach(
    text: str, pragma_lines: Iterable[int], out: str, path: str
) -> dict[str, int]:
    """Expert routines defined in the file, reached from an expert loop, recovered.

    `text` is the expert's file, `pragma_lines` the 1-based lines of its loop
    pragmas; `recovered_reachable` counts the reached routines whose function
    `out` (what `accls annotate` wrote) marks too.
    """
    source = parse_source(text, path)
    defined = {fn.name for fn in source.functions}
    reached = _called_in_loops(source, pragma_lines) & defined
    names = routine_names(text)
    ours = Counter(routine_names(out))
    wanted = Counter(n for n in names if n in reached)
    return {
        "defined": sum(1 for n in names if n in defined),
        "reachable": sum(wanted.values()),
        "recovered_reachable": sum((wanted & ours).values()),
    }
