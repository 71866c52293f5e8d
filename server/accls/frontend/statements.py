"""The statements of a loop's body block, as spans of the file."""

from __future__ import annotations

from dataclasses import dataclass

from accls.frontend.loop_model import Loop
from accls.frontend.model import Span
from accls.frontend.source_file import SourceFile
from accls.frontend.tsparser import parse_snippet

__all__ = ["BodyStatement", "body_statements"]

_PREFIX = "void __f(void){"


@dataclass(frozen=True, slots=True)
class BodyStatement:
    """One statement directly in a loop's body block."""

    span: Span
    kind: str  # tree-sitter's node type: "for_statement", "declaration", ...


def _span(data: bytes, start: int, end: int) -> Span:
    def point(offset: int) -> tuple[int, int]:
        row = data.count(b"\n", 0, offset)
        return row, offset - (data.rfind(b"\n", 0, offset) + 1)

    return Span(start, end, point(start), point(end))


def body_statements(source: SourceFile, loop: Loop) -> tuple[BodyStatement, ...] | None:
    """The statements of `loop`'s `{ ... }` body, in order.

    None when the body is not a block, does not parse, or holds preprocessor lines.
    """
    data = source.data
    text = data[loop.span.start_byte : loop.span.end_byte].decode(
        "utf-8", errors="surrogateescape"
    )
    root = parse_snippet(_PREFIX + text + "}")
    if root.has_error:
        return None
    fn = root.named_children[0] if root.named_children else None
    block = fn.child_by_field_name("body") if fn is not None else None
    found = block.named_children if block is not None else []
    stmt = found[0] if found else None
    if stmt is None or stmt.type != "for_statement":
        return None
    body = stmt.child_by_field_name("body")
    if body is None or body.type != "compound_statement":
        return None
    shift = loop.span.start_byte - len(_PREFIX.encode())
    out: list[BodyStatement] = []
    for child in body.named_children:
        if child.type == "comment":
            continue
        if child.type.startswith("preproc"):
            return None
        start, end = child.start_byte + shift, child.end_byte + shift
        out.append(BodyStatement(_span(data, start, end), child.type))
    return tuple(out)
