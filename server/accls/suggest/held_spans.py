"""Where the user's data directives hold a name on the device.

Around some code: a hold opens at an `enter data` (ended by the first `exit
data` naming the name after it) or a `data` construct (ended by its block);
OpenMP's `target` spellings alike. Elsewhere: a directive of another function
names a global. Text facts only: each function's own directives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis import FileAnalysis
from accls.analysis.data_clauses import split_top
from accls.analysis.device_coherence import function_directives
from accls.frontend import Directive, Function
from accls.suggest.held_text import block_end, names_in

__all__ = ["EXIT", "HOLDS", "Hold", "held_elsewhere", "hold_around", "moved_names"]

EXIT = frozenset({"exit data", "target exit data"})
_DATA = frozenset({"data", "target data"})
HOLDS = frozenset({"enter data", "target enter data"}) | _DATA


@dataclass(frozen=True, slots=True)
class Hold:
    """A user's directive that holds a name on the device around some code."""

    at: int  # where the opening directive starts
    body: int  # where the code it holds begins
    until: int  # where the hold ends: the `exit data`, or the `data` block's end
    opening: Directive
    closing: Directive | None  # None: no end in this function


def hold_around(
    data: bytes,
    span: tuple[int, int],
    name: str,
    directives: list[tuple[int, Directive]],
) -> Hold | None:
    """The innermost of the user's holds of `name` around the code `span`, if any."""
    start, end = span
    holds: list[Hold] = []
    for at, directive in directives:
        if directive.name not in HOLDS or not names_in(directive, name) or at >= start:
            continue
        body = directive.span.end_byte if directive.span else at
        if directive.name in _DATA:
            block = block_end(data, body)
            if block is not None and end <= block:
                holds.append(Hold(at, body, block, directive, directive))
            continue
        exits = [
            (x, d)
            for x, d in directives
            if d.name in EXIT and names_in(d, name) and x > at
        ]
        if not exits:
            holds.append(Hold(at, body, len(data), directive, None))
            continue
        x, closing = min(exits, key=lambda e: e[0])
        if x >= start:  # an exit before the code ends this hold before it
            holds.append(Hold(at, body, x, directive, closing))
    return max(holds, key=lambda h: h.at) if holds else None


# The clauses that move data (not `if(n > 8)`, `async(q)`, `device(d)`).
_WORD = re.compile(r"[A-Za-z_]\w*")
_MOVING = re.compile(r"p?copy\w*|p?create|present\w*|no_create|delete|deviceptr|map")
_NAME = re.compile(r"\s*(?:[\w\s,]*:)?\s*([A-Za-z_]\w*)")


def moved_names(directive: Directive) -> set[str]:
    """The names the directive's clauses list (`s` of `map(to: s)`), not indices."""
    return {
        m.group(1)
        for clause in directive.clauses
        if _MOVING.fullmatch(clause.name)
        for item in split_top(clause.args or "")
        if (m := _NAME.match(item))
    }


def held_elsewhere(
    analysis: FileAnalysis,
    fn: Function,
    name: str,
    sentinel: str,
    *,
    scalar: bool = False,
) -> bool:
    """Whether a data directive of another function names the global `name`.

    `scalar`: as an item it moves (`s`), not in an array's bounds (`a[0:s]`).
    """
    words, moved = _named_by_function(analysis, sentinel)
    table = moved if scalar else words
    base = _WORD.match(name)  # `g` of a member path `g.a`
    held = table.get(base.group(0) if base else name, ())
    return any(other != fn.name for other in held)


def _named_by_function(
    analysis: FileAnalysis, sentinel: str
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Per name, the functions whose data directives name it: any word, moved."""
    key = f"held names {sentinel}"
    kept = analysis.memo.get(key)
    if isinstance(kept, tuple):
        return kept
    words: dict[str, set[str]] = {}
    moved: dict[str, set[str]] = {}
    for other in analysis.source.functions:
        for _, directive in function_directives(analysis.source, other, sentinel):
            if directive.name not in HOLDS | EXIT and directive.name != "update":
                continue
            for clause in directive.clauses:
                for word in _WORD.findall(clause.args or ""):
                    words.setdefault(word, set()).add(other.name)
            for item in moved_names(directive):
                moved.setdefault(item, set()).add(other.name)
    analysis.memo[key] = (words, moved)
    return words, moved
