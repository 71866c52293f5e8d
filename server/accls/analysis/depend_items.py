"""The list items of `depend` clauses: the dependence type, `iterator(..)` expanded.

`depend(iterator(j = 0:4), out: a[j])` names `a[0]` .. `a[3]`; the `:` of the
iterator's range is not the one that ends the modifiers. An iterator with constant
bounds is expanded (up to `_MAX_VALUES` values); one with other bounds keeps its
name in the item, which then reads as an expression the checker cannot follow.
Constant sections (`a[0:5]`, `a[5:5]`) are intervals of elements: two items on one
array whose intervals are apart in some dimension name different storage.
"""

from __future__ import annotations

import ast
import re

__all__ = ["constant_intervals", "distinct_constants", "split_depend"]

_MAX_VALUES = 64
_RANGE = re.compile(r"^(?:[A-Za-z_][\w\s]*\s)?\s*([A-Za-z_]\w*)\s*=\s*(.+)$")


def _top_split(text: str, sep: str) -> list[str]:
    """Split at `sep` outside brackets."""
    out, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += ch in "[("
        depth -= ch in "])"
        if ch == sep and depth == 0:
            out.append(text[start:k])
            start = k + 1
    out.append(text[start:])
    return out


def _value(text: str) -> int | None:
    """The value of an integer expression of literals, None if it has names."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None
    allowed = (
        ast.Expression,
        ast.BinOp,
        ast.UnaryOp,
        ast.Constant,
        ast.operator,
        ast.unaryop,
    )
    if not all(isinstance(n, allowed) for n in ast.walk(tree)):
        return None
    if any(
        isinstance(n, ast.Constant) and type(n.value) is not int for n in ast.walk(tree)
    ):
        return None
    try:
        value = eval(compile(tree, "<depend>", "eval"), {"__builtins__": {}})
    except (ArithmeticError, TypeError):
        return None
    return int(value) if isinstance(value, int) else None


def _iterator_values(spec: str) -> list[dict[str, str]] | None:
    """Each binding of the iterators of `iterator(spec)`; None when not constant."""
    bindings: list[dict[str, str]] = [{}]
    for one in _top_split(spec, ","):
        m = _RANGE.match(one.strip())
        if m is None:
            return None
        bounds = [_value(b) for b in _top_split(m.group(2), ":")]
        if len(bounds) not in (2, 3) or any(b is None for b in bounds):
            return None
        known = [b for b in bounds if b is not None]
        step = known[2] if len(known) == 3 else 1
        if step == 0:
            return None
        values = range(known[0], known[1], step)
        if len(values) * len(bindings) > _MAX_VALUES:
            return None
        bindings = [{**b, m.group(1): str(v)} for b in bindings for v in values]
    return bindings


def _fold(item: str) -> str:
    """`a[2*1+1]` -> `a[3]`: subscripts of literals reduced to their value."""
    parts = re.split(r"(\[[^\[\]]*\])", item)
    out = []
    for part in parts:
        if part.startswith("[") and part.endswith("]"):
            pieces = [_value(p) for p in part[1:-1].split(":")]
            if all(p is not None for p in pieces):
                part = "[" + ":".join(str(p) for p in pieces) + "]"
        out.append(part)
    return "".join(out)


def split_depend(args: str) -> tuple[str, list[str]] | None:
    """(dependence type, list items without spaces) of one `depend` clause.

    None when no `:` ends the modifiers. Items of an `iterator` with constant
    bounds come once per value of the iterators.
    """
    head_items = _top_split(args, ":")
    if len(head_items) < 2:
        return None
    head, items = head_items[0], ":".join(head_items[1:])
    mods = [m.strip() for m in _top_split(head, ",")]
    kind = mods[-1]
    listed = ["".join(i.split()) for i in _top_split(items, ",") if i.strip()]
    spec = next(
        (
            m[m.index("(") + 1 : m.rindex(")")]
            for m in mods[:-1]
            if m.startswith("iterator")
        ),
        None,
    )
    if spec is None:
        return kind, listed
    bindings = _iterator_values(spec)
    if bindings is None:
        return kind, listed  # the iterator's names stay: an unknown expression
    out = []
    for item in listed:
        for b in bindings:
            text = item
            for name, value in b.items():
                text = re.sub(rf"\b{name}\b", f"({value})", text)
            out.append(_fold(text))
    return kind, list(dict.fromkeys(out))


def constant_intervals(item: str) -> tuple[str, list[tuple[int, int]]] | None:
    """(array, [first, last] element per dimension) for constant subscripts."""
    m = re.fullmatch(r"([A-Za-z_]\w*)((?:\[[^\[\]]*\])+)", item)
    if m is None:
        return None
    dims = []
    for sub in re.findall(r"\[([^\[\]]*)\]", m.group(2)):
        pieces = sub.split(":")
        if len(pieces) == 1 and pieces[0].isdigit():
            dims.append((int(pieces[0]), int(pieces[0])))
        elif len(pieces) == 2 and all(p.isdigit() for p in pieces if p) and pieces[1]:
            lo = int(pieces[0] or 0)
            dims.append((lo, lo + int(pieces[1]) - 1))
        else:
            return None
    return m.group(1), dims


def distinct_constants(item: str, other: str) -> bool:
    """True for `a[0]` and `a[1]`, or `a[0:5]` and `a[5:5]`: constants apart."""
    one, two = constant_intervals(item), constant_intervals(other)
    if one is None or two is None or one[0] != two[0] or len(one[1]) != len(two[1]):
        return False
    return any(a[1] < b[0] or b[1] < a[0] for a, b in zip(one[1], two[1], strict=True))
