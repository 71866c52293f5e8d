"""Recognise syntactic reduction patterns: `s += e`, `s = s + e`, min/max forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from tree_sitter import Node

from accls.frontend.expr_nodes import acts
from accls.frontend.exprs import node_text, operands, strip_parens
from accls.frontend.model import RedOp

__all__ = [
    "assignment_reduction",
    "c_minmax_call",
    "element_shift",
    "element_update",
    "if_minmax",
    "mentions",
]

_COMPOUND = {
    "+=": RedOp.ADD,
    "-=": RedOp.ADD,
    "*=": RedOp.MUL,
    "&=": RedOp.BAND,
    "|=": RedOp.BOR,
    "^=": RedOp.BXOR,
}
_BINARY = {
    "+": RedOp.ADD,
    "*": RedOp.MUL,
    "&": RedOp.BAND,
    "|": RedOp.BOR,
    "^": RedOp.BXOR,
    "&&": RedOp.LAND,
    "||": RedOp.LOR,
}
# The binary operators with a compound assignment (`-` is `+=` of the negation).
_COMPOUND_OF = {op[:-1]: red for op, red in _COMPOUND.items() if op != "-="}
_MINMAX_CALLS = {
    "fmax": RedOp.MAX,
    "fmaxf": RedOp.MAX,
    "fmaxl": RedOp.MAX,
    "max": RedOp.MAX,
    "MAX": RedOp.MAX,
    "fmin": RedOp.MIN,
    "fminf": RedOp.MIN,
    "fminl": RedOp.MIN,
    "min": RedOp.MIN,
    "MIN": RedOp.MIN,
}


def mentions(node: Node, name: str) -> bool:
    """True if identifier `name` appears anywhere inside `node`."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "identifier" and node_text(cur) == name:
            return True
        stack.extend(cur.children)
    return False


def _is_name(node: Node, name: str) -> bool:
    node = strip_parens(node)
    return node.type == "identifier" and node_text(node) == name


def _operands(node: Node, op: str) -> list[Node]:
    """Flatten a left- or right-associated chain of the same binary operator."""
    node = strip_parens(node)
    parts = operands(node) if node.type == "binary_expression" else None
    if parts is not None and parts[1] == op:
        return [*_operands(parts[0], op), *_operands(parts[2], op)]
    return [node]


def _root_name(node: Node) -> str | None:
    """The variable an element path starts from: `a` for `a[i][j]` and `s.a[i]`."""
    while node.type in ("subscript_expression", "field_expression"):
        inner = node.child_by_field_name("argument")
        if inner is None:
            return None
        node = strip_parens(inner)
    return node_text(node) if node.type == "identifier" else None


class _SelfUpdate(NamedTuple):
    """`a[k] = left op right`: the array, the operands, and a test for `a[k]`."""

    name: str
    left: Node
    op: str
    right: Node
    text: str  # `a[k]` without spaces

    def same(self, node: Node) -> bool:
        """Whether `node` is the element written, `a[k]` again."""
        return "".join(node_text(strip_parens(node)).split()) == self.text


def _self_update(target: Node, rhs: Node) -> _SelfUpdate | None:
    """`target = rhs` as an element and a binary operation, when `k` does not act."""
    target = strip_parens(target)
    rhs = strip_parens(rhs)
    name = _root_name(target)
    parts = operands(rhs) if rhs.type == "binary_expression" else None
    if name is None or parts is None or acts(target):
        return None
    left, op, right = parts
    return _SelfUpdate(name, left, op, right, "".join(node_text(target).split()))


def element_update(target: Node, rhs: Node) -> tuple[RedOp, Node] | None:
    """For `a[k] = a[k] op e` (or `e op a[k]`, op commutative): op and `e`.

    The statement is then `a[k] op= e`: the same element is read and written
    once, so it is one update. Only one operator is taken (`x = x op expr`, the
    form `atomic update` accepts), `e` must not read `a`, and `k` must not call,
    assign or step anything (it is evaluated twice in the original).
    """
    found = _self_update(target, rhs)
    if found is None or (found.op != "-" and found.op not in _COMPOUND_OF):
        return None
    name, left, op, right, _ = found
    if found.same(left) and not mentions(right, name):
        return _COMPOUND_OF.get(op, RedOp.ADD), right
    if op != "-" and found.same(right) and not mentions(left, name):
        return _COMPOUND_OF[op], left
    return None


def element_shift(target: Node, rhs: Node) -> tuple[str, Node] | None:
    """For `a[k] = a[k] << e` (or `>>`): the compound operator `<<=` and `e`.

    Like `element_update`, but a shift is no reduction: the element must be the
    left operand, `e` must not read `a`, and `k` must not act (it is evaluated
    twice in the original).
    """
    found = _self_update(target, rhs)
    if found is None or found.op not in ("<<", ">>"):
        return None
    if mentions(found.right, found.name) or not found.same(found.left):
        return None
    return found.op + "=", found.right


def _binary_reduction(rhs: Node, name: str) -> RedOp | None:
    oper = rhs.child_by_field_name("operator")
    if oper is None:
        return None
    op = node_text(oper)
    if op == "-":
        # Only `s - e1 - e2 ...` with s leftmost is a (+) reduction.
        chain = _operands(rhs, "-")
        if _is_name(chain[0], name) and not any(mentions(c, name) for c in chain[1:]):
            return RedOp.ADD
        return None
    if op not in _BINARY:
        return None
    chain = _operands(rhs, op)
    hits = [c for c in chain if _is_name(c, name)]
    others = [c for c in chain if not _is_name(c, name)]
    if len(hits) == 1 and not any(mentions(c, name) for c in others):
        return _BINARY[op]
    return None


def _compare(cond: Node, name: str) -> tuple[RedOp, Node] | None:
    """For `x > m`-style conditions: the op that keeps m extreme, and x."""
    cond = strip_parens(cond)
    parts = operands(cond) if cond.type == "binary_expression" else None
    if parts is None or parts[1] not in (">", ">=", "<", "<="):
        return None
    left, op, right = parts
    greater = op in (">", ">=")
    if _is_name(right, name) and not mentions(left, name):
        return (RedOp.MAX if greater else RedOp.MIN), left
    if _is_name(left, name) and not mentions(right, name):
        return (RedOp.MIN if greater else RedOp.MAX), right
    return None


def _ternary_reduction(rhs: Node, name: str) -> RedOp | None:
    cond = rhs.child_by_field_name("condition")
    then = rhs.child_by_field_name("consequence")
    other = rhs.child_by_field_name("alternative")
    if cond is None or then is None or other is None:
        return None
    found = _compare(cond, name)
    if found is None:
        return None
    op, value = found
    text = "".join(node_text(strip_parens(value)).split())
    then_text = "".join(node_text(strip_parens(then)).split())
    if then_text == text and _is_name(other, name):
        return op
    if _is_name(then, name) and "".join(node_text(strip_parens(other)).split()) == text:
        return RedOp.MIN if op is RedOp.MAX else RedOp.MAX
    return None


def c_minmax_call(fn: Node) -> RedOp | None:
    """The running extreme a C call named by `fn` keeps (`fmax`, `MAX`...), if any."""
    return _MINMAX_CALLS.get(node_text(fn))


def assignment_reduction(
    operator: str,
    rhs: Node,
    name: str,
    minmax_call: Callable[[Node], RedOp | None] = c_minmax_call,
) -> RedOp | None:
    """The reduction `name <operator> rhs` performs, if it is one.

    `minmax_call` says which extreme a call's function keeps: the language
    front end knows which function a name resolves to.
    """
    if operator in _COMPOUND:
        return None if mentions(rhs, name) else _COMPOUND[operator]
    if operator != "=":
        return None
    rhs = strip_parens(rhs)
    if rhs.type == "binary_expression":
        return _binary_reduction(rhs, name)
    if rhs.type == "call_expression":
        fn = rhs.child_by_field_name("function")
        args = rhs.child_by_field_name("arguments")
        op = minmax_call(fn) if fn is not None else None
        if op is None or args is None:
            return None
        items = args.named_children
        if len(items) != 2:
            return None
        hits = [a for a in items if _is_name(a, name)]
        others = [a for a in items if not _is_name(a, name)]
        if len(hits) == 1 and not any(mentions(a, name) for a in others):
            return op
        return None
    if rhs.type == "conditional_expression":
        return _ternary_reduction(rhs, name)
    return None


def if_minmax(stmt: Node) -> tuple[str, RedOp] | None:
    """For `if (x > m) m = x;` (no else): the scalar m and MAX; likewise MIN."""
    if stmt.child_by_field_name("alternative") is not None:
        return None
    cond = stmt.child_by_field_name("condition")
    body = stmt.child_by_field_name("consequence")
    if cond is None or body is None:
        return None
    if body.type == "compound_statement":
        inner = [c for c in body.named_children if c.type != "comment"]
        if len(inner) != 1:
            return None
        body = inner[0]
    if body.type != "expression_statement" or body.named_child_count != 1:
        return None
    assign = body.named_children[0]
    if assign is None or assign.type != "assignment_expression":
        return None
    parts = operands(assign)
    if parts is None or parts[1] != "=":
        return None
    left, _, right = parts
    left = strip_parens(left)
    if left.type != "identifier":
        return None
    name = node_text(left)
    found = _compare(cond, name)
    if found is None:
        return None
    op, value = found
    same = "".join(node_text(strip_parens(value)).split()) == "".join(
        node_text(strip_parens(right)).split()
    )
    return (name, op) if same else None
