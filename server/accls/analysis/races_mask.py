"""Updates `h[e & K]` of a parallel loop: a mask takes at most K + 1 values.

`e & K` with K >= 0 lies in [0, K] whatever `e` is (its sign included), so a
loop of more than K + 1 iterations, each running the update once (no branch or
inner loop around it), updates one element from two iterations: the pigeonhole
of `races_index.modulo_collision`, for the mask spelling of a power-of-two
remainder (`(i * 7) & (B - 1)`).
"""

from __future__ import annotations

import ast

from accls.analysis.races_index import literal_value, loop_range
from accls.frontend import Loop, Ref, SourceFile

__all__ = ["mask_collision", "once_per_iteration"]

_MAX_DEPTH = 16


def _constant(node: ast.expr, source: SourceFile, depth: int = 0) -> int | None:
    """An integer of literals and macros joined by `+`, `-`, `*`, or None."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return literal_value(node.id, source)
    if not isinstance(node, ast.BinOp) or type(node.op) not in (
        ast.Add,
        ast.Sub,
        ast.Mult,
    ):
        return None
    left = _constant(node.left, source, depth + 1)
    right = None if left is None else _constant(node.right, source, depth + 1)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Add):
        return left + right
    return left - right if isinstance(node.op, ast.Sub) else left * right


def once_per_iteration(ref: Ref, loop: Loop, source: SourceFile) -> bool:
    """True when no branch or inner loop of the body holds `ref`."""
    at, body = ref.span.start_byte, loop.body
    return not any(
        body.start_byte <= b.span.start_byte
        and b.span != body
        and b.span.start_byte <= at < b.span.end_byte
        for b in source.branches
    ) and ref.loops[-1:] == (loop.id,)


def mask_collision(ref: Ref, loop: Loop, source: SourceFile) -> str:
    """Why two iterations surely update one element of `h[e & K]`, or ""."""
    if ref.atomic or len(ref.subscripts) != 1 or loop.var is None:
        return ""
    text = ref.subscripts[0].text.strip()
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return ""
    if not isinstance(tree, ast.BinOp) or not isinstance(tree.op, ast.BitAnd):
        return ""
    found = [(side, _constant(side, source)) for side in (tree.right, tree.left)]
    side, mask = next(((s, m) for s, m in found if m is not None), (None, None))
    span = loop_range(loop, source)
    if side is None or mask is None or mask < 0 or span is None:
        return ""
    if len(span) <= mask + 1 or not once_per_iteration(ref, loop, source):
        return ""
    spelled = ast.get_source_segment(text, side) or str(mask)
    spelled = spelled if spelled.isidentifier() or spelled.isdigit() else f"({spelled})"
    return (
        f"`{ref.render()}` (line {ref.span.line}) takes at most {mask + 1} values "
        f"of `& {spelled}`, and each of the loop's {len(span)} iterations updates "
        "one: two iterations update one element"
    )
