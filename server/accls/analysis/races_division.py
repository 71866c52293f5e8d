"""Updates `h[i / D]` of a parallel loop: neighbouring iterations share an element.

C's `/` truncates: over a unit-step range, `i / D` keeps one value for up to D
consecutive `i` (2 * D - 1 around zero), so a loop of more iterations than the
values it can take, each running the update once (no branch or inner loop
around it), updates one element from two iterations: a restriction
`coarse[i / 2] += fine[i]` races. With an unknown upper bound, its first two
iterations already share an element when the lower bound is not the last of its
run of D (`for (i = 0; i < n; i++)`): the loop races whenever it runs twice.
"""

from __future__ import annotations

import ast
import itertools

from accls.analysis.races_index import literal_value, loop_range, modulo_collision
from accls.analysis.races_index_nests import nest_repeats
from accls.analysis.races_mask import mask_collision, once_per_iteration
from accls.analysis.races_pigeonhole import extent_collision
from accls.analysis.races_thread_slots import thread_slot_collision
from accls.frontend import Loop, Ref, SourceFile

__all__ = ["index_collision"]


def index_collision(ref: Ref, loop: Loop, source: SourceFile) -> str | tuple[str, int]:
    """Why two iterations surely update one element through `% M`, `& K` or `/ D`.

    Or through an index array a two-deep nest fills: the store and its line; or
    through data, in more iterations than the array has elements.
    """
    found = modulo_collision(ref, loop, source) or mask_collision(ref, loop, source)
    found = found or _division(ref, loop, source)
    found = found or thread_slot_collision(ref, loop, source)
    return (
        found or nest_repeats(ref, loop, source) or extent_collision(ref, loop, source)
    )


def _divisor(ref: Ref, loop: Loop, source: SourceFile) -> tuple[str, int] | None:
    """(text, D) for a subscript `var / D`, D a literal or macro of at least 2."""
    text = ref.subscripts[0].text.strip()
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(tree, ast.BinOp) or not isinstance(tree.op, ast.Div):
        return None
    if not isinstance(tree.left, ast.Name) or tree.left.id != loop.var:
        return None
    right = ast.get_source_segment(text, tree.right) or ""
    value = literal_value(right, source)
    return (right, value) if value is not None and value >= 2 else None


def _division(ref: Ref, loop: Loop, source: SourceFile) -> str:
    if ref.atomic or len(ref.subscripts) != 1 or loop.var is None:
        return ""
    found = _divisor(ref, loop, source)
    if found is None or not once_per_iteration(ref, loop, source):
        return ""
    right, divisor = found
    span = loop_range(loop, source)
    if span is None:
        return _open_division(ref, loop, source, right, divisor)
    pair = next(
        (
            (a, b)
            for a, b in itertools.pairwise(span)
            if _quotient(a, divisor) == _quotient(b, divisor)
        ),
        None,
    )
    if pair is None:
        return ""
    return (
        f"`{ref.render()}` (line {ref.span.line}) is one element for iterations "
        f"{pair[0]} and {pair[1]} (`/ {right}` truncates), and each iteration "
        "updates it"
    )


def _open_division(
    ref: Ref, loop: Loop, source: SourceFile, right: str, divisor: int
) -> str:
    """The first two iterations' shared element when only the lower bound is known."""
    low = literal_value(loop.lower_text, source)
    if loop.step != 1 or loop.cond_op not in ("<", "<=") or low is None:
        return ""
    if _quotient(low, divisor) != _quotient(low + 1, divisor):
        return ""
    return (
        f"`{ref.render()}` (line {ref.span.line}) is one element for iterations "
        f"{low} and {low + 1} (`/ {right}` truncates), and each iteration updates "
        "it: the loop races whenever it runs two iterations"
    )


def _quotient(value: int, divisor: int) -> int:
    """C's `value / divisor`: truncated toward zero."""
    whole = abs(value) // divisor
    return whole if value >= 0 else -whole
