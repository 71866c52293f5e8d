"""Text facts for `held_copies`: what lies between a user's directives and a loop.

Comments and strings out, pragma lines apart: whether a stretch of the function
names an array, calls, stores through a pointer or leaves; which `update` moves
an array; brace depths; sections as written.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache

from accls.analysis.array_sections import ArrayUse
from accls.analysis.data_clauses import Section, split_top
from accls.frontend import Directive, Function

__all__ = [
    "TO_DEVICE",
    "TO_HOST",
    "aliased",
    "block_end",
    "copied",
    "depths",
    "item",
    "names_in",
    "quiet",
    "quiet_between",
    "same",
    "scratch",
    "update",
]

_QUIET = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)
_PRAGMA_LINE = re.compile(rb"^[ \t]*#(?:[^\n]*\\\r?\n)*[^\n]*", re.M)
_CALL = re.compile(rb"\b([A-Za-z_]\w*)\s*\(")
_NOT_CALLS = frozenset({b"if", b"for", b"while", b"switch", b"sizeof", b"return"})
_STORE = re.compile(
    rb"(\]|->\s*\w+|\.\s*[A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)"
    rb"|(\]|->\s*\w+)\s*(?:\+\+|--)|(?:\+\+|--)\s*\w+\s*(?:\[|->)"
    rb"|(?:^|[;{}(])\s*\*+\s*\(?\s*\w+[^;=]*(?:[-+*/%&|^]|<<|>>)?=(?!=)"
)
_LEAVES = re.compile(rb"\b(return|goto|exit|abort|longjmp|_Exit|quick_exit)\b")


def quiet(data: bytes, start: int, end: int) -> bytes:
    """The bytes between the offsets, comments and strings blanked."""
    return _QUIET.sub(b" ", data[start:end])


def names_in(directive: Directive, name: str) -> bool:
    """Whether a clause of the directive names `name`."""
    word = re.compile(r"\b" + re.escape(name) + r"\b")
    return any(word.search(c.args or "") for c in directive.clauses)


@lru_cache(maxsize=256)  # every loop and call of a `data` block asks again
def block_end(data: bytes, start: int) -> int | None:
    """The offset after the block that opens at the first `{` after `start`."""
    text = _QUIET.sub(lambda m: b" " * len(m.group(0)), data[start:])
    at = 0
    while at < len(text) and text[at : at + 1].isspace():
        at += 1
    if text[at : at + 1] != b"{":
        return None
    depth = 0
    for offset in range(at, len(text)):
        if text[offset] == 0x7B:
            depth += 1
        elif text[offset] == 0x7D:
            depth -= 1
            if depth == 0:
                return start + offset + 1
    return None


def quiet_between(
    data: bytes, start: int, end: int, name: str, *, aliased: bool = True
) -> bool:
    """Nothing between the offsets names `name`, calls, or leaves the function.

    `aliased`: another pointer may reach the array, so no store through any.
    """
    text = quiet(data, start, end)
    if re.search(rb"\b" + re.escape(name.encode()) + rb"\b", text):
        return False
    code = _PRAGMA_LINE.sub(b" ", text)
    if _LEAVES.search(code) or (aliased and _STORE.search(code)):
        return False  # a store through a pointer may reach the array by another name
    return all(m.group(1) in _NOT_CALLS for m in _CALL.finditer(code))


def aliased(fn: Function, name: str) -> bool:
    """Whether another name may reach the array.

    Not for a `restrict` parameter, an array object, or a block the function
    allocated for it alone.
    """
    var = fn.lookup(name)
    if var is None:
        return True
    if var.dims and not var.pointers:
        return False
    return not (var.fresh or (var.scope == "param" and var.restrict))


# A use that only tests the pointer leaves no other name on the array: an
# operand of `!`, `==`, `!=`, `&&`, `||`, or a whole condition (`if (u)`,
# `if (!u)`, `if (u == NULL)`, `NULL != u`, `assert(u)`): its value is a truth.
_TESTED_BEFORE = re.compile(
    rb"(?:(?<![!=<>])!|==|!=|&&|\|\||\b(?:if|while|assert)\s*\()\s*$"
)
_TESTED_AFTER = re.compile(rb"^\s*(?:==|!=|&&|\|\||\))")


def _only_tested(data: bytes, start: int, end: int) -> bool:
    """Whether the pointer's use at `start:end` only tests it (against null)."""
    before = data[max(0, start - 40) : start]
    return bool(
        _TESTED_BEFORE.search(before) and _TESTED_AFTER.match(data[end : end + 40])
    )


def copied(
    fn: Function, name: str, data: bytes, calls: Sequence[tuple[int, int]] = ()
) -> bool:
    """Whether the function takes the pointer's address or uses its value.

    A plain use (`p = u + 1`, `f(u)`) may leave another name on the array;
    `free(u)` is the one that cannot, and neither can the arguments of
    `calls` (kernel functions' calls: device code on the array).
    """
    spans = sorted(calls)
    starts = [a for a, _ in spans]
    for r in fn.refs:
        if r.name != name or r.subscripts or r.deref or r.member:
            continue
        at = bisect_right(starts, r.span.start_byte) - 1
        if at >= 0 and r.span.start_byte < spans[at][1]:
            continue  # calls do not nest in one another's arguments here
        if r.escapes or r.copies:
            return True
        if r.is_write:
            continue  # the pointer set: the hold's own range never does it
        if _only_tested(data, r.span.start_byte, r.span.end_byte):
            continue  # a truth value: no other name on the array
        before = data[max(0, r.span.start_byte - 8) : r.span.start_byte]
        if not re.search(rb"\bfree\s*\(\s*$", before):
            return True
    return any(r.copies == name for r in fn.refs)


def same(section: Section, use: ArrayUse) -> bool:
    """The section is exactly the loop's (the written elements are all of it)."""
    spelled = item(section)
    return use.section is not None and re.sub(r"\s", "", spelled) == re.sub(
        r"\s", "", use.section
    )


TO_DEVICE = frozenset({"device", "to"})
TO_HOST = frozenset({"self", "host", "from"})


def update(
    directives: list[tuple[int, Directive]],
    within: tuple[int, int],
    name: str,
    kinds: frozenset[str],
    use: ArrayUse,
    ins: list[Section],
) -> Directive | None:
    """The `update` in `within` nearest the loop that moves all of `name` one way.

    The last before the loop (`within` ends at it) for the device, the first
    after it for the host.
    """
    found = [
        d
        for at, d in directives
        if within[0] <= at < within[1]
        and d.name in ("update", "target update")
        and names_in(d, name)
    ]
    if not found:
        return None
    nearest = found[-1] if kinds is TO_DEVICE else found[0]
    whole = {name, re.sub(r"\s", "", use.section or name)}
    whole |= {re.sub(r"\s", "", item(s)) for s in ins}
    mine = re.compile(re.escape(name) + r"(\[|$)")
    for clause in nearest.clauses:
        if clause.name not in kinds:
            continue
        items = [re.sub(r"\s", "", i) for i in split_top(clause.args or "")]
        named = [i for i in items if mine.match(i)]
        if named and all(i in whole for i in named):
            return nearest
    return None


def item(section: Section) -> str:
    """The array as a clause names it: `a[0:n]` of `map(to: a[0:n])`."""
    spelled = section.clause.split("(", 1)[-1].rsplit(")", 1)[0]
    return spelled.split(":", 1)[-1] if "map" in section.clause else spelled


def depths(data: bytes, start: int, end: int) -> tuple[int, int]:
    """(lowest, final) brace depth from `start` to `end`, comments and strings out."""
    depth = low = 0
    for ch in _QUIET.sub(b"", data[start:end]):
        if ch == 0x7B:
            depth += 1
        elif ch == 0x7D:
            depth -= 1
            low = min(low, depth)
    return low, depth


def scratch(fn: Function, name: str, until: int, data: bytes) -> bool:
    """A local the host never reads after the hold ends (at most frees it)."""
    var = fn.lookup(name)
    if var is None or var.scope != "local" or var.static:
        return False
    for r in fn.refs:
        if r.name != name or r.span.start_byte < until:
            continue
        before = data[max(0, r.span.start_byte - 8) : r.span.start_byte]
        if r.subscripts or r.deref or not re.search(rb"\bfree\s*\(\s*$", before):
            return False
    return True
