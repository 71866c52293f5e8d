"""A parallel pragma the author commented out above a loop: the loop stays serial.

    //#pragma omp parallel for shared(w, n) private(x)
    for (x = 0; x < n; x++) { ... }

The author wrote the pragma, tried it and turned it off: a decision about this loop
(it ran slower, or the result changed in a way the analysis may not see), not a
forgotten line. Experts who leave such a comment keep the loop serial; accls offers
the pragma only on request (`--all`). The comment must hold a directive that makes
the loop parallel (`parallel`, `for`, `do`, `loop`, `kernels`, `taskloop`, `simd`,
`distribute`), stand alone on its line, and sit directly above the loop, with only
blank lines between: a comment between may be an older version of the code, whose
own commented pragma belongs to the loop the comment holds, not to this one.
"""

from __future__ import annotations

import re

from accls.frontend import Loop, SourceFile

__all__ = ["disabled_reason"]

_DISABLED = re.compile(
    r"^\s*(?://+|/\*+|!+)\s*(?:#\s*pragma\s+|!\$)(omp|acc)\b([^\n]*)", re.IGNORECASE
)
_PARALLEL = frozenset(
    {"parallel", "for", "do", "loop", "kernels", "taskloop", "simd", "distribute"}
)
_WORD = re.compile(r"[a-z_]+")
_LOOK_BACK = 8  # lines above the loop searched, blank lines only between


def _disables(line: str) -> bool:
    """True when `line` is a commented-out directive that parallelizes a loop."""
    found = _DISABLED.match(line)
    if found is None:
        return False
    words = _WORD.findall(found.group(2).split("(")[0].lower())
    return bool(set(words) & _PARALLEL)


def disabled_reason(source: SourceFile, loop: Loop) -> str:
    """Why `loop` stays serial: its author commented out a pragma above it, or ""."""
    start = source.data.rfind(b"\n", 0, loop.span.start_byte) + 1
    above = source.data[max(start - 4096, 0) : start].decode("utf-8", "replace")
    lines = above.split("\n")[:-1][-_LOOK_BACK:]
    for line in reversed(lines):
        if _disables(line):
            return (
                "left serial by its author: a parallel pragma above the loop is "
                f"commented out (`{line.strip()[:60]}`)"
            )
        if line.strip():
            return ""  # code or prose between: the comment is about something else
    return ""
