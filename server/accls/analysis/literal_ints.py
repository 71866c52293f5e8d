"""Integer expressions over literals, evaluated as C would (non-negative only)."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

__all__ = ["eval_literal"]

_OPS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


def eval_literal(node: ast.expr, with_min: bool = False) -> int:
    """Integer `+ - * // %` over literals (and `min` when `with_min`).

    ValueError for anything else, and for a negative operand, where C's
    truncating `/` and `%` and Python's flooring ones differ.
    """
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left = eval_literal(node.left, with_min)
        right = eval_literal(node.right, with_min)
        if left < 0 or right < 0:
            raise ValueError("negative operand: C and Python differ")
        return _OPS[type(node.op)](left, right)
    if (
        with_min
        and isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "min"
        and len(node.args) == 2
        and not node.keywords
    ):
        return min(eval_literal(a, with_min) for a in node.args)
    raise ValueError("not an integer expression")
