"""A loop bound that calls an accessor: `j < g.ny()` is `j < g->m_ny`.

The C++ walk names each call of the header that reads one data member
(`int ny() const { return m_ny; }`) by that member's path; the bound is then
the polynomial of the member, like a C bound `j < g->ny`. Anything else in the
bound keeps it opaque.
"""

from __future__ import annotations

from collections.abc import Mapping

from tree_sitter import Node

from accls.frontend.exprs import MAX_DEPTH, node_text, strip_parens, to_poly
from accls.frontend.poly import Poly

__all__ = ["called_bound"]

_ARITH = frozenset({"+", "-", "*"})


def called_bound(node: Node, calls: Mapping[str, str], depth: int = 0) -> Poly | None:
    """The polynomial of `node` with each call of `calls` (by text) its member."""
    node = strip_parens(node)
    plain = to_poly(node, depth)
    if plain is not None or depth > MAX_DEPTH:
        return plain
    if node.type == "call_expression":
        member = calls.get("".join(node_text(node).split()))
        return Poly.sym(member) if member is not None else None
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if op is None or left is None or right is None or node_text(op) not in _ARITH:
            return None
        one = called_bound(left, calls, depth + 1)
        two = called_bound(right, calls, depth + 1)
        if one is None or two is None:
            return None
        text = node_text(op)
        return one + two if text == "+" else one - two if text == "-" else one * two
    return None
