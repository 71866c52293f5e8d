"""Loops every thread runs alike: `int k = 0; while (k < 10) { ...; k++; }`.

A local of the region that starts from a literal and only steps by literals
(`k++`, `k -= 2`) takes the same values on every thread, so a `while` over it
alone runs the same turns on each: no doubt about which threads run the body.
The first test must hold on the starting values, so the body runs at all.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable

from accls.frontend import Function, Region, SourceFile

__all__ = ["everywhere_loops", "runs_everywhere", "set_once"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_CMP: dict[type[ast.cmpop], Callable[[int, int], bool]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.NotEq: operator.ne,
}


def _start(name: str, region: Region, fn: Function, data: bytes) -> int | None:
    """The literal a region local starts from, when it only steps by literals."""
    start, end = region.span.start_byte, region.span.end_byte
    decls = [
        v
        for v in fn.locals
        if v.name == name and v.span and start <= v.span.start_byte < end
    ]
    if len(decls) != 1 or decls[0].span is None or decls[0].static:
        return None
    at = decls[0].span.start_byte
    head = data[at : at + 80].decode("utf-8", "replace")
    init = re.match(rf"{re.escape(name)}\s*=\s*(\d+)\s*[,;]", head)
    if init is None:
        return None
    for ref in fn.refs:
        pos = ref.span.start_byte
        if ref.name != name or not ref.is_write or pos == at or not start <= pos < end:
            continue
        text = data[ref.span.start_byte : ref.span.end_byte + 12].decode(
            "utf-8", "replace"
        )
        before = data[max(pos - 2, 0) : pos].decode("utf-8", "replace")
        stepped = re.match(rf"{re.escape(name)}\s*(?:\+\+|--|[-+]=\s*\d+\s*[;)])", text)
        if stepped is None and before not in ("++", "--"):
            return None
    return int(init.group(1))


def runs_everywhere(
    condition: str, names: set[str], region: Region, fn: Function, source: SourceFile
) -> bool:
    """True for `while (k < 10)` over such locals, whose first test holds."""
    values: dict[str, int] = {}
    for name in names:
        value = _start(name, region, fn, source.data)
        if value is None:
            return False
        values[name] = value
    text = _NAME.sub(lambda m: str(values.get(m.group(0), m.group(0))), condition)
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return False
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return False
    left, right, test = node.left, node.comparators[0], _CMP.get(type(node.ops[0]))
    if test is None or not isinstance(left, ast.Constant):
        return False
    if not isinstance(right, ast.Constant):
        return False
    if type(left.value) is not int or type(right.value) is not int:
        return False
    return test(left.value, right.value)


def everywhere_loops(
    region: Region, fn: Function, source: SourceFile
) -> frozenset[int]:
    """Body starts of the region's `while` loops that every thread runs alike."""
    start, end = region.span.start_byte, region.span.end_byte
    candidates = [
        b
        for b in source.branches
        if start <= b.span.start_byte < end
        and b.kind == "loop"
        and b.condition.lstrip().startswith("(")
    ]
    if not candidates:
        return frozenset()
    own = {v.name for v in fn.locals if v.span and start <= v.span.start_byte < end}
    out: set[int] = set()
    for branch in candidates:
        cond = branch.condition.strip()
        names = set(_NAME.findall(cond))
        if names and names <= own and runs_everywhere(cond, names, region, fn, source):
            out.add(branch.span.start_byte)
    return frozenset(out)


def set_once(name: str, text: str) -> bool:
    """True when the region assigns `name` once and never updates it otherwise."""
    sets = re.findall(rf"\b{name}\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)", text)
    bumps = re.search(rf"(?:\+\+|--)\s*{name}\b|\b{name}\s*(?:\+\+|--)", text)
    return len(sets) == 1 and bumps is None and f"&{name}" not in text.replace(" ", "")
