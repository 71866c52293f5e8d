"""Count floating-point arithmetic in a loop's text, for cost estimates."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import MAX_DEPTH, node_text, operands, strip_parens
from accls.frontend.tsparser import parse_snippet

__all__ = ["float_ops"]

_ARITH = frozenset({"+", "-", "*", "/", "+=", "-=", "*=", "/="})
_FLOAT_TYPES = ("double", "float")
_PREFIX = "void __f(void){"


def _is_float(node: Node, floats: frozenset[str], depth: int = 0) -> bool:
    """True if the expression has a floating type, as far as names and literals say."""
    node = strip_parens(node)
    kind = node.type
    if depth > MAX_DEPTH:
        return False
    if kind == "number_literal":
        text = node_text(node).lower()
        return not text.startswith("0x") and any(c in text for c in ".e")
    if kind == "identifier":
        return node_text(node) in floats
    if kind in ("subscript_expression", "pointer_expression"):
        inner = node.named_children[0] if node.named_children else None
        return inner is not None and _is_float(inner, floats, depth + 1)
    if kind == "cast_expression":
        cast = node.child_by_field_name("type")
        return cast is not None and any(t in node_text(cast) for t in _FLOAT_TYPES)
    if kind in ("binary_expression", "assignment_expression"):
        parts = operands(node)
        return parts is not None and (
            _is_float(parts[0], floats, depth + 1)
            or _is_float(parts[2], floats, depth + 1)
        )
    if kind == "unary_expression":
        arg = node.child_by_field_name("argument")
        return arg is not None and _is_float(arg, floats, depth + 1)
    return False


def float_ops(text: str, floats: frozenset[str]) -> tuple[tuple[int, int], ...]:
    """(offset of the innermost enclosing `for`, count) of floating `+ - * /`.

    `text` is a statement (a `for` loop); offsets are bytes from its start.
    `floats` names the variables (and arrays) of floating type.
    """
    root = parse_snippet(_PREFIX + text + "}")
    counts: dict[int, int] = {}
    stack: list[tuple[Node, int, int]] = [(root, -1, 0)]
    while stack:
        node, loop, depth = stack.pop()
        if depth > MAX_DEPTH:
            continue
        if node.type == "for_statement":
            loop = node.start_byte - len(_PREFIX)
        if node.type in ("binary_expression", "assignment_expression"):
            parts = operands(node)
            if parts is not None and parts[1] in _ARITH and _is_float(node, floats):
                counts[loop] = counts.get(loop, 0) + 1
        stack.extend((child, loop, depth + 1) for child in node.named_children)
    return tuple(sorted(counts.items()))
