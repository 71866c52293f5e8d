"""The bounds of a thread's own block, read from the region's text.

`chunk = (N + nt - 1) / nt; lo = tid * chunk; hi = lo + chunk; if (hi > N) hi = N;`
gives `lo` and `hi` in the thread number, the team size and literals: names set
once are replaced by their values, and a name set once and then clamped by
`if (hi > E) hi = E;` is `min(value, E)`. A clamp only shrinks the value, so the
bound is exact for every thread of every team, and `bound_at` evaluates it.
"""

from __future__ import annotations

import ast
import re

from accls.analysis.literal_ints import eval_literal
from accls.analysis.mhp_block_helpers import TEAM_SIZE, THREAD_NUMBER
from accls.analysis.mhp_uniform import set_once

__all__ = ["bound_at", "expand_bound"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_DEPTH = 6
"""Names followed through their values at most: `hi` -> `lo` -> `chunk` -> ..."""


def expand_bound(
    bound: str,
    text: str,
    tid: str,
    sizes: frozenset[str],
    constants: dict[str, int],
) -> str | None:
    """`bound` in the thread number, team size and literals; None otherwise."""
    known = sizes | {tid, THREAD_NUMBER, TEAM_SIZE}
    return _expand(bound.strip(), text, known, constants, _DEPTH)


def _expand(
    expr: str, text: str, known: frozenset[str], constants: dict[str, int], depth: int
) -> str | None:
    values: dict[str, str] = {}
    for name in set(_NAME.findall(expr)) - known:
        if name in constants:
            values[name] = str(constants[name])
            continue
        value = _value_of(name, text, known, constants, depth - 1) if depth else None
        if value is None:
            return None
        values[name] = f"({value})"
    return _NAME.sub(lambda m: values.get(m[0], m[0]), expr)


def _value_of(
    name: str, text: str, known: frozenset[str], constants: dict[str, int], depth: int
) -> str | None:
    """The value the region gives `name`: its one setting, or that setting clamped."""
    init = re.search(rf"\b{re.escape(name)}\s*=\s*([^,;=]+)[,;]", text)
    if init is None:
        return None
    first = _expand(init.group(1).strip(), text, known, constants, depth)
    if first is None:
        return None
    if set_once(name, text):
        return first
    cap = _clamp(name, text, init.end())
    if cap is None:
        return None
    limit = _expand(cap, text, known, constants, depth)
    return None if limit is None else f"min({first}, {limit})"


def _clamp(name: str, text: str, after: int) -> str | None:
    """`E` of the one `if (name > E) name = E;` after the setting; None otherwise.

    The name must be set exactly twice (the setting and the clamp), never bumped
    nor its address taken: then its value is the smaller of the two.
    """
    n = re.escape(name)
    sets = re.findall(rf"\b{n}\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)", text)
    bumps = re.search(rf"(?:\+\+|--)\s*{n}\b|\b{n}\s*(?:\+\+|--)", text)
    if len(sets) != 2 or bumps or f"&{name}" in text.replace(" ", ""):
        return None
    found = re.compile(
        rf"\bif\s*\(\s*(?:{n}\s*>=?\s*(?P<a>[^()<>=!&|?]+?)"
        rf"|(?P<b>[^()<>=!&|?]+?)\s*<=?\s*{n})\s*\)"
        rf"\s*(?P<brace>\{{)?\s*{n}\s*=\s*(?P<c>[^;{{}}]+);\s*(?(brace)\}})"
    ).search(text, after)
    if found is None:
        return None
    limit = "".join((found["a"] or found["b"]).split())
    return limit if "".join(found["c"].split()) == limit else None


def bound_at(
    expr: str, tid: str, sizes: frozenset[str], me: int, team: int
) -> int | None:
    """`expr` for thread `me` of a team of `team`; None when not computable."""
    for name in sizes | {TEAM_SIZE}:
        expr = re.sub(rf"\b{re.escape(name)}\b", str(team), expr)
    for name in (tid, THREAD_NUMBER):
        expr = re.sub(rf"\b{re.escape(name)}\b", str(me), expr)
    text = f"({expr})".replace("/", "//")
    try:
        value = eval_literal(ast.parse(text, mode="eval").body, with_min=True)
    except (ArithmeticError, SyntaxError, ValueError, RecursionError):
        return None
    return value if value >= 0 else None
