"""The statements of a loop's body block, as spans of the file."""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

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


_CONDITIONALS = frozenset(
    {"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"}
)


def _empty_group(node: Node) -> bool:
    """True when `node` is an `#if` group whose branches hold no code, only comments."""
    if node.type not in _CONDITIONALS:
        return False
    tests = {
        (c.start_byte, c.end_byte)
        for c in (
            node.child_by_field_name("condition"),
            node.child_by_field_name("name"),
        )
        if c is not None
    }
    for child in node.named_children:
        if child.type == "comment" or (child.start_byte, child.end_byte) in tests:
            continue
        if not _empty_group(child):
            return False
    return True


def body_statements(source: SourceFile, loop: Loop) -> tuple[BodyStatement, ...] | None:
    """The statements of `loop`'s `{ ... }` body, in order.

    None when the body is not a block, does not parse, or holds preprocessor lines
    around code. A conditional group with no code in any branch (`#if X` `#else`
    `#endif` with nothing between, as a tool that removes pragmas leaves it) is no
    statement: it is skipped.
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
            if _empty_group(child):
                continue
            return None
        start, end = child.start_byte + shift, child.end_byte + shift
        out.append(BodyStatement(_span(data, start, end), child.type))
    return tuple(out)
