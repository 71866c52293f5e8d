"""Subscripts and bounds with integer macros folded: `i - N / 2` with `N` 100.

The front end keeps `N / 2` out of a polynomial (C's integer division); once the
macro's value replaces `N`, the division of two non-negative literals is one
literal, and `i - 50` is affine again.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping

from accls.frontend import Poly
from accls.frontend.exprs import expression_poly

__all__ = ["folded_poly"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_OPS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: lambda x, y: x + y,
    ast.Sub: lambda x, y: x - y,
    ast.Mult: lambda x, y: x * y,
    ast.FloorDiv: lambda x, y: x // y,
    ast.Mod: lambda x, y: x % y,
}


def _fold(node: ast.expr) -> ast.expr:
    """The tree with each operation on two non-negative literals computed."""
    if isinstance(node, ast.BinOp):
        left, right = _fold(node.left), _fold(node.right)
        op = _OPS.get(type(node.op))
        if (
            op is not None
            and isinstance(left, ast.Constant)
            and isinstance(right, ast.Constant)
            and type(left.value) is int
            and type(right.value) is int
            and left.value >= 0
            and right.value > 0
        ):
            return ast.Constant(op(left.value, right.value))
        return ast.BinOp(left, node.op, right)
    return node


def folded_poly(
    text: str, constants: Mapping[str, int], default: Poly | None = None
) -> Poly | None:
    """The polynomial of `text` once its integer macros take their values.

    `default` (the front end's own polynomial) when no macro folds.
    """
    if not set(_NAME.findall(text)) & constants.keys():
        return default
    expanded = _NAME.sub(lambda m: str(constants.get(m.group(0), m.group(0))), text)
    if "//" in expanded:
        return default
    try:
        tree = ast.parse(expanded.replace("/", "//"), mode="eval")
    except SyntaxError:
        return default
    found = expression_poly(ast.unparse(_fold(tree.body)).replace("//", "/"))
    return default if found is None else found
