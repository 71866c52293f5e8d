"""A pointer passed whole to a library call that only reads or writes through it.

`memcpy(deep.v, cur.v, n)` copies bytes between the blocks and keeps neither
pointer: a block only `deep.v` reached before the call is still only its own
after it. Read from the text before the argument, as the scans of member uses
(`member_rows`) see a use.
"""

from __future__ import annotations

import re

from accls.frontend import Effect, library_function

__all__ = ["call_argument", "lent"]

# The callee ahead of a call's `(`: a name, or a member path (`ops->apply`).
_CALLEE = re.compile(r"([A-Za-z_][\w]*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*$")


def call_argument(before: str) -> tuple[str, int] | None:
    """(callee text, position) when `before` ends by opening a whole argument.

    The argument starts right after the call's `(` or a `,` at its top level;
    a subscript's `[` or a statement's end before the call's `(` means none.
    """
    if before.rstrip()[-1:] not in ("(", ","):
        return None
    depth, commas = 0, 0
    for pos in range(len(before) - 1, -1, -1):
        char = before[pos]
        if char in ")]":
            depth += 1
        elif char in "([" and depth:
            depth -= 1
        elif char == "(":
            found = _CALLEE.search(before[:pos])
            return ("".join(found.group(1).split()), commas) if found else None
        elif char == "[" or char in ";{}":
            return None
        elif char == "," and depth == 0:
            commas += 1
    return None


def lent(before: str) -> bool:
    """Whether `before` ends where a library memory call takes its next argument.

    The table of library effects says the call reads or writes through it
    (`memcpy`, `memset`), which keeps no pointer.
    """
    argument = call_argument(before)
    if argument is None:
        return False
    callee, position = argument
    entry = library_function(callee.rsplit(".", 1)[-1].rsplit(">", 1)[-1])
    return (
        entry is not None
        and entry.effect is Effect.MEMORY
        and position in (*entry.writes, *entry.reads)
    )
