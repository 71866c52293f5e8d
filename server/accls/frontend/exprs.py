"""Tree-sitter expression nodes to text, spans and polynomials."""

from __future__ import annotations

import re

from tree_sitter import Node

from accls.frontend.model import Span
from accls.frontend.poly import Poly
from accls.frontend.tsparser import parse_snippet

__all__ = [
    "MAX_DEPTH",
    "division_poly",
    "expression_poly",
    "identifiers",
    "int_literal",
    "node_text",
    "operands",
    "remainder_poly",
    "span_of",
    "strip_parens",
    "to_poly",
]

MAX_DEPTH = 200
"""Expressions nested deeper than this are not modelled (they stay opaque)."""


def node_text(node: Node) -> str:
    """The source text of a node."""
    raw = node.text
    return raw.decode("utf-8", errors="replace") if raw is not None else ""


def identifiers(node: Node) -> set[str]:
    """Every identifier in an expression."""
    out: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if item.type == "identifier":
            out.add(node_text(item))
        stack.extend(item.named_children)
    return out


def span_of(node: Node) -> Span:
    """The Span of a node."""
    return Span(
        node.start_byte,
        node.end_byte,
        (node.start_point.row, node.start_point.column),
        (node.end_point.row, node.end_point.column),
    )


def strip_parens(node: Node) -> Node:
    """The expression inside any number of parentheses."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        inner = node.named_children[0]
        if inner is None:
            break
        node = inner
    return node


def int_literal(text: str) -> int | None:
    """The value of a C integer literal, or None."""
    body = text.rstrip("uUlL").replace("'", "")
    try:
        if body.lower().startswith("0x"):
            return int(body, 16)
        if body.lower().startswith("0b"):
            return int(body, 2)
        if len(body) > 1 and body.startswith("0") and body.isdigit():
            return int(body, 8)
        return int(body, 10)
    except ValueError:
        return None


# Integer types too narrow to hold an index: a cast to one wraps the value.
_NARROW = re.compile(r"\b(?:char|short|bool|_Bool|u?int(?:8|16)_t)\b")


def to_poly(node: Node, depth: int = 0) -> Poly | None:
    """The polynomial value of an integer expression, or None if it is not one."""
    if depth > MAX_DEPTH:
        return None
    node = strip_parens(node)
    kind = node.type
    if kind == "number_literal":
        value = int_literal(node_text(node))
        return None if value is None else Poly.const(value)
    if kind == "identifier":
        return Poly.sym(node_text(node))
    if kind == "field_expression":
        return Poly.sym("".join(node_text(node).split()))
    if kind == "cast_expression":
        inner = node.child_by_field_name("value")
        target = node.child_by_field_name("type")
        if target is not None and _NARROW.search(node_text(target)):
            return None  # `(unsigned char)i` wraps: not the value of `i`
        return None if inner is None else to_poly(inner, depth + 1)
    if kind == "unary_expression":
        arg = node.child_by_field_name("argument")
        op = node.child_by_field_name("operator")
        if arg is None or op is None:
            return None
        operand = to_poly(arg, depth + 1)
        if operand is None:
            return None
        sign = node_text(op)
        if sign == "-":
            return -operand
        return operand if sign == "+" else None
    if kind == "binary_expression":
        return _binary_poly(node, depth)
    return None


def operands(node: Node) -> tuple[Node, str, Node] | None:
    """(left, operator text, right) of a binary or assignment expression."""
    left = node.child_by_field_name("left")
    right = node.child_by_field_name("right")
    op = node.child_by_field_name("operator")
    if left is None or right is None or op is None:
        return None
    return left, node_text(op), right


def _binary_poly(node: Node, depth: int) -> Poly | None:
    parts = operands(node)
    if parts is None:
        return None
    left, sign, right = parts
    lhs = to_poly(left, depth + 1)
    if lhs is None:
        return None
    rhs = to_poly(right, depth + 1)
    if rhs is None:
        return None
    if sign == "+":
        return lhs + rhs
    if sign == "-":
        return lhs - rhs
    if sign == "*":
        return lhs * rhs
    if sign == "<<" and rhs.is_constant and 0 <= rhs.constant < 31:
        return lhs.scale(1 << rhs.constant)
    return None


def expression_poly(text: str) -> Poly | None:
    """The polynomial value of a C expression written as text (`n - 1`), or None."""
    if not text.strip() or any(c in text for c in ";{}"):
        return None
    root = parse_snippet(f"void __f(void){{({text});}}")
    if root.has_error:
        return None
    body = (
        root.named_children[0].child_by_field_name("body")
        if root.named_children
        else None
    )
    stmt = body.named_children[0] if body is not None and body.named_children else None
    if stmt is None or stmt.type != "expression_statement" or not stmt.named_children:
        return None
    expr = stmt.named_children[0]
    return None if expr is None else to_poly(expr)


Remainder = tuple[Poly, Poly]
"""The dividend `e` and modulus `m` of one `e % m`."""

Division = tuple[Poly, Poly, str]
"""The dividend, the divisor and the operator (`%` or `/`) of one term."""


def remainder_poly(text: str) -> tuple[Poly, tuple[Remainder, ...]] | None:
    """The polynomial of a C expression whose `e % m` terms are symbols `%0`, `%1`.

    Each `e % m` whose operands are polynomials (and hold no `%`) becomes the
    symbol `%k`, k its place in the returned list; `%` is in no C name, so the
    symbols are fresh. None when the expression is no polynomial that way.
    """
    found = division_poly(text)
    if found is None or any(t[2] != "%" or _nested(t) for t in found[1]):
        return None
    return found[0], tuple((top, bottom) for top, bottom, _ in found[1])


def _nested(term: Division) -> bool:
    return any(n.startswith("%") for part in term[:2] for n in part.names())


def division_poly(text: str) -> tuple[Poly, tuple[Division, ...]] | None:
    """Like `remainder_poly`, with `e / d` and `e & k` terms, and terms in operands.

    Each `e % m` and `e / d` becomes the symbol `%k` (k its place in the list,
    with its operator); an operand may hold earlier terms (`x % (n/10 + 1)`:
    `%0` is `n / 10`, `%1` is `x % (%0 + 1)`). None when the expression is no
    polynomial that way or holds no such term.
    """
    if not text.strip() or not ("%" in text or "/" in text or "&" in text):
        return None
    if any(c in text for c in ";{}"):
        return None
    root = parse_snippet(f"void __f(void){{({text});}}")
    if root.has_error or not root.named_children:
        return None
    body = root.named_children[0].child_by_field_name("body")
    stmt = body.named_children[0] if body is not None and body.named_children else None
    if stmt is None or stmt.type != "expression_statement" or not stmt.named_children:
        return None
    expr = stmt.named_children[0]
    found: list[Division] = []
    poly = None if expr is None else _division_terms(expr, found, 0)
    return None if poly is None or not found else (poly, tuple(found))


def _division_terms(
    node: Node, found: list[Division], depth: int, cast: bool = False
) -> Poly | None:
    """`node` as a polynomial over its terms' symbols; `cast`: under a cast."""
    node = strip_parens(node)
    if depth > MAX_DEPTH:
        return None
    if node.type == "cast_expression":
        inner = node.child_by_field_name("value")
        target = node.child_by_field_name("type")
        if inner is None or target is None or _NARROW.search(node_text(target)):
            return None
        return _division_terms(inner, found, depth + 1, True)
    parts = operands(node) if node.type == "binary_expression" else None
    if parts is None or parts[1] not in ("+", "-", "*", "%", "/", "&"):
        op = node.child_by_field_name("operator")
        arg = node.child_by_field_name("argument")
        if node.type == "unary_expression" and op is not None and node_text(op) == "-":
            negated = (
                None if arg is None else _division_terms(arg, found, depth + 1, cast)
            )
            return None if negated is None else -negated
        return to_poly(node, depth)
    left, sign, right = parts
    if sign == "/" and cast:
        return None  # `(int)(d / 2)` may divide a floating value
    lhs = _division_terms(left, found, depth + 1, cast)
    rhs = None if lhs is None else _division_terms(right, found, depth + 1, cast)
    if lhs is None or rhs is None:
        return None
    if sign in ("%", "/", "&"):  # a mask `e & (M - 1)`: see remainders
        found.append((lhs, rhs, sign))
        return Poly.sym(f"%{len(found) - 1}")
    return lhs + rhs if sign == "+" else lhs - rhs if sign == "-" else lhs * rhs
