"""A pointer passed whole to a library call that only reads or writes through it.

`memcpy(deep.v, cur.v, n)` copies bytes between the blocks and keeps neither
pointer: a block only `deep.v` reached before the call is still only its own
after it. Read from the text before the argument, as the scans of member uses
(`member_rows`) see a use.
"""

from __future__ import annotations

import re

from accls.frontend import Effect, library_function

__all__ = ["lent"]

_NAME = re.compile(r"([A-Za-z_]\w*)\s*$")


def lent(before: str) -> bool:
    """Whether `before` ends where a library memory call takes its next argument.

    The argument starts right after the call's `(` or a `,` at its top level,
    and the table of library effects says the call reads or writes through it
    (`memcpy`, `memset`), which keeps no pointer.
    """
    text = before.rstrip()
    if not text.endswith(("(", ",")):
        return False
    depth, position = 0, 0
    for at in range(len(text) - 1, -1, -1):
        char = text[at]
        if char in ")]":
            depth += 1
        elif char in "([":
            if depth == 0:
                opened = at
                break
            depth -= 1
        elif char == "," and depth == 0 and at != len(text) - 1:
            position += 1
        elif char in ";{}":
            return False
    else:
        return False
    if text[opened] != "(":
        return False
    position += text.endswith(",")
    name = _NAME.search(text[:opened])
    entry = library_function(name.group(1)) if name is not None else None
    return (
        entry is not None
        and entry.effect is Effect.MEMORY
        and position in (*entry.writes, *entry.reads)
    )
