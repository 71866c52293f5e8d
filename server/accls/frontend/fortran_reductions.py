"""Fortran reduction statements: `s = s + e`, `s = e * s`, `s = max(s, e)`."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.fortran_exprs import flat, name_of, strip
from accls.frontend.model import RedOp

__all__ = ["reduction_of"]

_SKIP = frozenset({"(", ")", ",", "comment", "&", "=", "%"})
_MINMAX = {
    "max": RedOp.MAX,
    "min": RedOp.MIN,
    "amax1": RedOp.MAX,
    "amin1": RedOp.MIN,
    "dmax1": RedOp.MAX,
    "dmin1": RedOp.MIN,
    "iand": RedOp.BAND,
    "ior": RedOp.BOR,
    "ieor": RedOp.BXOR,
}
_BINARY = {
    "+": RedOp.ADD,
    "-": RedOp.ADD,
    "*": RedOp.MUL,
    ".and.": RedOp.LAND,
    ".or.": RedOp.LOR,
}


def _same(a: Node, b: Node) -> bool:
    return "".join(flat(a).lower().split()) == "".join(flat(b).lower().split())


def _mentions(node: Node, target: Node) -> bool:
    base = strip(target)
    name = flat(
        base.named_children[0] if base.type == "call_expression" else base
    ).lower()
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "identifier" and name_of(cur) == name:
            return True
        stack.extend(cur.named_children)
    return False


def _chain(node: Node, red: RedOp, positive: bool = True) -> list[tuple[Node, bool]]:
    """The operands of a chain of one operator (`+`/`-` for ADD), with their signs."""
    node = strip(node)
    if node.type in ("math_expression", "logical_expression"):
        parts = [c for c in node.children if c.type not in ("comment", "&")]
        if len(parts) == 3 and _BINARY.get(flat(parts[1]).lower()) is red:
            minus = flat(parts[1]) == "-"
            return [
                *_chain(parts[0], red, positive),
                *_chain(parts[2], red, positive != minus),
            ]
    return [(node, positive)]


def reduction_of(lhs: Node, rhs: Node) -> tuple[RedOp, list[Node]] | None:
    """`s = s + e`, `s = e * s`, `s = max(s, e)`: the operator and other operands."""
    rhs = strip(rhs)
    if rhs.type in ("math_expression", "logical_expression"):
        parts = [c for c in rhs.children if c.type not in ("comment", "&")]
        if len(parts) != 3:
            return None
        red = _BINARY.get(flat(parts[1]).lower())
        if red is None:
            return None
        terms = _chain(rhs, red)
        # `s = s + a + b` is `(s + a) + b`: one term of the chain is `s`, added
        # (never subtracted) and mentioned nowhere else.
        mine = [t for t, positive in terms if positive and _same(t, lhs)]
        rest = [t for t, _ in terms if not _same(t, lhs)]
        if (
            len(mine) == 1
            and len(rest) == len(terms) - 1
            and not any(_mentions(t, lhs) for t in rest)
        ):
            return red, rest
        return None
    if rhs.type == "call_expression" and rhs.named_children:
        callee = rhs.named_children[0]
        args = next((c for c in rhs.named_children if c.type == "argument_list"), None)
        if callee.type != "identifier" or args is None:
            return None
        red = _MINMAX.get(name_of(callee))
        items = [c for c in args.named_children if c.type not in _SKIP]
        if red is None or len(items) < 2:
            return None
        same = [i for i in items if _same(i, lhs)]
        others = [i for i in items if not _same(i, lhs)]
        if len(same) == 1 and not any(_mentions(o, lhs) for o in others):
            return red, others
    return None
