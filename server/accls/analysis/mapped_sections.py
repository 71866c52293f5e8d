"""Two names of one buffer whose mapped sections are disjoint ranges of it.

`b = a + n / 2` then `enter data copyin(a[0:n / 2], b[0:n / 2])` maps the two
halves of one buffer: two separate mappings, never a partial overlap. The
sections are compared where the construct stands, with each name's offset from
the buffer's root pointer; a quotient such as `n / 2` is one value wherever the
same text appears, so halves and quarters compare by their texts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from accls.analysis.buffer_offsets import root_offset
from accls.analysis.inequalities import proves_nonnegative
from accls.frontend import Function, Poly, SourceFile
from accls.frontend.exprs import expression_poly

__all__ = ["sections_apart"]

_SECTION = re.compile(r"\[([^:\[\]]*):([^:\[\]]*)\]")
_QUOTIENT = re.compile(r"\(?\s*[A-Za-z_0-9]\w*\s*/\s*[A-Za-z_0-9]\w*\s*\)?")
_ASSIGN = re.compile(r"\s*=\s*([^;{}]*);")
_OFFSET = re.compile(r"([A-Za-z_]\w*)\s*\+\s*(.+)|&\s*([A-Za-z_]\w*)\s*\[(.+)\]")
_NAME = re.compile(r"[A-Za-z_]\w*")
_DEPTH = 4


def _poly(text: str, quotients: dict[str, str]) -> Poly | None:
    """`text` as a polynomial, each quotient `x / k` an opaque name by its text."""

    def name(match: re.Match[str]) -> str:
        key = "".join(match.group(0).split()).strip("()")
        return quotients.setdefault(key, f"q_{len(quotients)}_")

    return expression_poly(_QUOTIENT.sub(name, text))


def _origin(
    name: str, fn: Function, source: SourceFile, pos: int, quotients: dict[str, str]
) -> tuple[str, Poly] | None:
    """`name` as a root pointer plus an offset at `pos`; None when not visible."""
    offset, end = Poly.const(0), pos
    for _ in range(_DEPTH):
        found = root_offset(name, fn, source, pos)
        if found is None:
            return None
        root, more, _ = found
        offset = offset + more
        writes = [r for r in fn.refs if r.name == root and r.is_write]
        if len(writes) != 1 or writes[0].span.start_byte >= pos:
            return root, offset  # a parameter, or a root set once
        text = source.data[writes[0].span.end_byte :].decode("utf-8", "replace")
        value = _ASSIGN.match(text)
        step = _OFFSET.fullmatch(value.group(1).strip()) if value else None
        if step is None:
            return root, offset  # an allocation, a call: the root itself
        base = step.group(1) or step.group(3)
        added = step.group(2) or step.group(4)
        extra = _poly(added, quotients)
        if extra is None or base == root:
            return None
        # The offset's names hold still from the assignment to the construct.
        names = set(_NAME.findall(added))
        since = writes[0].span.end_byte
        if any(
            r.is_write and r.name in names and since <= r.span.start_byte < end
            for r in fn.refs
        ):
            return None
        name, offset, pos = base, offset + extra, writes[0].span.start_byte
    return None


def sections_apart(
    one: str,
    two: str,
    sections: Mapping[str, str],
    pos: int,
    fn: Function | None,
    source: SourceFile,
) -> bool:
    """Whether `one` and `two` map disjoint ranges of one buffer at `pos`.

    `sections` holds each name's exact section as written ("[0:n/2]").
    """
    if fn is None:
        return False
    quotients: dict[str, str] = {}
    ranges: list[tuple[Poly, Poly]] = []
    roots: set[str] = set()
    for name in (one, two):
        section = _SECTION.fullmatch(sections.get(name, ""))
        origin = _origin(name, fn, source, pos, quotients)
        if section is None or origin is None:
            return False
        start = _poly(section.group(1) or "0", quotients)
        length = _poly(section.group(2), quotients)
        if start is None or length is None:
            return False
        roots.add(origin[0])
        ranges.append((origin[1] + start, origin[1] + start + length))
    (low_a, high_a), (low_b, high_b) = ranges
    if len(roots) != 1:
        return False
    return proves_nonnegative(low_b - high_a, []) or proves_nonnegative(
        low_a - high_b, []
    )
