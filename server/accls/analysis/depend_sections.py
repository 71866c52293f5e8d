"""Array sections apart whatever their names hold (`a[0:h]`, `a[h:h]`), or meeting."""

from __future__ import annotations

import ast
import re
from collections import Counter

__all__ = ["sections_apart", "sections_meet"]

_ITEM = re.compile(r"([A-Za-z_]\w*)((?:\[[^\[\]]*\])+)")

Linear = Counter[str]  # name -> coefficient; "" holds the constant


def _linear(text: str) -> Linear | None:
    """`text` as a sum of integer multiples of names, or None."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    return _form(node)


def _form(node: ast.expr) -> Linear | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Counter({"": node.value})
    if isinstance(node, ast.Name):
        return Counter({node.id: 1})
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _form(node.operand)
        return None if inner is None else Counter({k: -v for k, v in inner.items()})
    if not isinstance(node, ast.BinOp):
        return None
    left, right = _form(node.left), _form(node.right)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Add | ast.Sub):
        sign = 1 if isinstance(node.op, ast.Add) else -1
        out = Counter(left)
        for k, v in right.items():
            out[k] += sign * v
        return out
    if isinstance(node.op, ast.Mult):
        for const, other in ((left, right), (right, left)):
            if set(const) <= {""}:
                return Counter({k: v * const[""] for k, v in other.items()})
    return None  # `/`, `%`: C's rounding is not the sum's


def _bounds(sub: str) -> tuple[Linear, Linear] | None:
    """(first element, one past the last) of a subscript `k` or section `lo:len`."""
    pieces = sub.split(":")
    if len(pieces) == 1:
        first = _linear(pieces[0])
        return None if first is None else (first, first + Counter({"": 1}))
    if len(pieces) != 2 or not pieces[1].strip():
        return None
    lo = _linear(pieces[0] or "0")
    size = _linear(pieces[1])
    if lo is None or size is None:
        return None
    end = Counter(lo)
    for k, v in size.items():
        end[k] += v
    return lo, end


def _not_below(a: Linear, b: Linear) -> bool:
    """True when `a - b` is a constant at least 0, whatever the names hold."""
    diff = Counter(a)
    for k, v in b.items():
        diff[k] -= v
    return all(v == 0 for k, v in diff.items() if k) and diff[""] >= 0


def sections_apart(item: str, other: str, fixed: frozenset[str]) -> bool:
    """True when two items on one array share no element in some dimension.

    Only names in `fixed` (shared, never written in the region) may appear, so
    both items read them with one value.
    """
    one, two = _ITEM.fullmatch(item.strip()), _ITEM.fullmatch(other.strip())
    if one is None or two is None or one.group(1) != two.group(1):
        return False
    subs = [re.findall(r"\[([^\[\]]*)\]", m.group(2)) for m in (one, two)]
    if len(subs[0]) != len(subs[1]):
        return False
    for a, b in zip(subs[0], subs[1], strict=True):
        ends = _bounds(a), _bounds(b)
        if ends[0] is None or ends[1] is None:
            continue
        names = {k for e in (*ends[0], *ends[1]) for k in e if k and e[k]}
        if not names <= fixed:
            continue
        (lo1, end1), (lo2, end2) = ends[0], ends[1]
        if _not_below(lo2, end1) or _not_below(lo1, end2):
            return True
    return False


def _positive(diff: Linear, lows: list[Linear], lengths: list[Linear]) -> bool:
    """True when `diff` > 0 given every low >= 0 and every length >= 1."""
    if _not_below(diff, Counter({"": 1})):
        return True
    for length in lengths:
        rest = Counter(diff)
        rest.subtract(length)
        if _not_below(rest, Counter()) or any(_not_below(rest, lo) for lo in lows):
            return True
    return False


def sections_meet(item: str, other: str) -> bool:
    """True when two items on one array surely share an element.

    OpenMP holds a section's lower bound and length non-negative; both sections
    are taken as non-empty (one that maps nothing copies nothing). Every
    dimension's ranges must meet: `u[0:h+1]` and `u[h:n-h]` share `u[h]`.
    """
    one, two = _ITEM.fullmatch(item.strip()), _ITEM.fullmatch(other.strip())
    if one is None or two is None or one.group(1) != two.group(1):
        return False
    subs = [re.findall(r"\[([^\[\]]*)\]", m.group(2)) for m in (one, two)]
    if len(subs[0]) != len(subs[1]):
        return False
    for a, b in zip(subs[0], subs[1], strict=True):
        ends = _bounds(a), _bounds(b)
        if ends[0] is None or ends[1] is None:
            return False
        (lo1, end1), (lo2, end2) = ends[0], ends[1]
        lows = [lo1, lo2]
        lengths = [_difference(end1, lo1), _difference(end2, lo2)]
        if not (
            _positive(_difference(end1, lo2), lows, lengths)
            and _positive(_difference(end2, lo1), lows, lengths)
        ):
            return False
    return True


def _difference(a: Linear, b: Linear) -> Linear:
    out = Counter(a)
    out.subtract(b)
    return out
