"""What a callee stores through the address of a pointer field: `init(&pot->phi)`.

`&pot->phi` handed to `void init(Table **slot)` lets `init` store any pointer
into the field. When the callee's only stores through `slot` are `*slot = v`,
with `v` a value the field facts can name (a fresh block, NULL), those stores
are the field's facts like any `pot->phi = v`. Every other use of `slot` is
refused (the stores are then unknown): `slot` copied, stored, returned,
indexed, stepped, its target's address taken, or handed to a function other
than one of the file's, whose parameter there is checked the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.frontend import FieldEvent, Function, SourceFile

__all__ = ["SlotStore", "address_position", "address_stores", "slot_stores"]

_DEPTH = 4  # callees nested deeper than this are not followed
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_TEST = re.compile(r"(?:\bif|\bwhile|\bassert)\s*\(\s*$")
_NULL_TEST = re.compile(r"^(?:==|!=)\s*(?:NULL|0)\b")
_NULL_BEFORE = re.compile(r"\b(?:NULL|0)\s*(?:==|!=)\s*$")
_STEP = re.compile(r"^(?:\+\+|--|[-+*/%&|^]=|<<=|>>=)")


@dataclass(frozen=True, slots=True)
class SlotStore:
    """One `*slot = value` store: the value's text, the function and its line."""

    value: str
    function: Function
    line: int


def address_position(args: tuple[str, ...], path: str) -> int | None:
    """The position of the argument `&path` (parentheses and spaces aside)."""
    wanted = "&" + re.sub(r"[\s()]", "", path)
    found = [k for k, a in enumerate(args) if re.sub(r"[\s()]", "", a) == wanted]
    return found[0] if len(found) == 1 else None


def _body(fn: Function, source: SourceFile) -> tuple[str, int] | None:
    """The text of `fn`'s body without comments, and the line it starts on."""
    data = source.data
    if len(data) != len(source.text):
        return None  # non-ASCII text: byte offsets are not character offsets
    text = source.text[fn.span.start_byte : fn.span.end_byte]
    brace = text.find("{")
    if brace < 0 or ";" in text[:brace]:
        return None  # a K&R definition: its parameters' order is not the list's
    body = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text[brace:])
    return body, fn.span.line + text[:brace].count("\n")


def _statement_end(text: str) -> int:
    """Where the expression at the start of `text` ends (`;` or `,` at depth 0)."""
    depth = 0
    for pos, char in enumerate(text):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        if depth < 0 or (depth == 0 and char in ";,"):
            return pos
    return len(text)


def _argument_of(before: str) -> tuple[str, int] | None:
    """(callee, position) when the text before a name opens one plain argument."""
    depth, commas = 0, 0
    for pos in range(len(before) - 1, -1, -1):
        char = before[pos]
        if char in ")]":
            depth += 1
        elif char in "[" or (char == "(" and depth):
            depth -= 1
        elif char == "(":
            name = re.search(r"(?<![\w.>])([A-Za-z_]\w*)\s*$", before[:pos])
            return (name.group(1), commas) if name is not None else None
        elif char == "," and depth == 0:
            commas += 1
        elif char in ";{}" and depth == 0:
            return None
    return None


def slot_stores(
    fn: Function,
    position: int,
    source: SourceFile,
    depth: int = 0,
    seen: frozenset[tuple[str, int]] = frozenset(),
) -> tuple[SlotStore, ...] | None:
    """The stores `fn` makes through its pointer parameter `position`, or None."""
    if position >= len(fn.params) or depth > _DEPTH or (fn.name, position) in seen:
        return None if depth > _DEPTH else ()
    if sum(1 for f in source.functions if f.name == fn.name) != 1:
        return None  # defined under several #if branches
    name = fn.params[position].name
    word = re.compile(rf"(?<![\w.>]){re.escape(name)}\b")
    if any(word.search(value) for _, value in source.macros):
        return None  # a macro may name it
    read = _body(fn, source)
    if read is None:
        return None
    body, first_line = read
    if fn.lookup(name) is not fn.params[position]:
        return None  # a local of the same name
    out: list[SlotStore] = []
    for match in word.finditer(body):
        before = body[: match.start()].rstrip()
        after = body[match.end() :].lstrip()
        if before.endswith("(*") and after.startswith(")"):
            before, after = before[:-1].rstrip(), after[1:].lstrip()
            before = before[:-1] if before.endswith("(") else before
            before += "*"
        if before.endswith("*"):
            if before[:-1].rstrip().endswith("&") or _STEP.match(after):
                return None  # `&*slot`, `*slot += k`, `*slot++`
            if after.startswith("=") and not after.startswith("=="):
                value = after[1:]
                value = value[: _statement_end(value)].strip()
                line = first_line + body[: match.start()].count("\n")
                out.append(SlotStore(" ".join(value.split()), fn, line))
            elif after.startswith("["):
                return None
            continue  # a read of the field's value
        if (
            before.endswith("!")
            or _NULL_TEST.match(after)
            or _NULL_BEFORE.search(before)
            or (_TEST.search(before) and after.startswith(")"))
        ):
            continue  # a test of the slot itself
        plain = before[-1:] in ("(", ",") and after[:1] in (")", ",")
        passed = _argument_of(before) if plain else None
        # `fn.calls` holds calls through pointers as `(*f)`: only the file's own.
        known = passed is not None and passed[0] in fn.calls
        callee = source.function(passed[0]) if passed is not None and known else None
        if passed is None or callee is None:
            return None  # copied, stored, returned, indexed or passed on unseen
        inner = slot_stores(
            callee, passed[1], source, depth + 1, seen | {(fn.name, position)}
        )
        if inner is None:
            return None
        out.extend(inner)
    return tuple(out)


def address_stores(
    event: FieldEvent, fn: Function | None, source: SourceFile
) -> tuple[SlotStore, ...] | None:
    """The stores through `&path` of an ADDRESS event, or None when unseen."""
    callee = source.function(event.value) if event.value else None
    calls = [
        c
        for c in (fn.call_sites if fn is not None else ())
        if c.name == event.value and c.span.line == event.line
    ]
    if callee is None or len(calls) != 1:
        return None
    position = address_position(calls[0].args, event.path)
    return slot_stores(callee, position, source) if position is not None else None
