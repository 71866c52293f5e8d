"""The facts a condition gives: `!(i < n || j >= 0)` is `i - n >= 0`, `-j - 1 >= 0`.

Each fact is an affine form `>= 0` (or `== 0`, with the flag), read from the
text of a condition: the comparisons of an `&&` when it holds, the negated
comparisons of an `||` when it fails. A part that is no affine comparison, or
a condition that writes, gives none.
"""

from __future__ import annotations

import re

from accls.analysis.field_paths import balanced
from accls.frontend import Poly
from accls.frontend.exprs import expression_poly

__all__ = ["CAST", "condition_facts", "condition_sides", "negated_facts"]

# `(int)x`: a conversion may change the value, so the fact would not be affine.
CAST = re.compile(r"\(\s*[A-Za-z_][\w\s]*\**\s*\)\s*[\w(]")
_COMPARE = re.compile(r"(?P<a>[^<>=!]+?)\s*(?P<op><=|>=|<|>|!=)\s*(?P<b>[^<>=!]+)")


def negated_facts(condition: str) -> list[tuple[Poly, bool]]:
    """The facts `!(condition)` gives: each comparison of an `||` negated."""
    text = condition.strip()
    while text.startswith("(") and text.endswith(")") and balanced(text[1:-1]):
        text = text[1:-1].strip()
    out: list[tuple[Poly, bool]] = []
    for part in _top_split(text, "||"):
        found = _comparison(part)
        if found is None:
            return []
        out.append(found)
    return out


# `a op b` holds when `!(a op' b)` does: the negation of the other operator.
_OPPOSITE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!="}
# A write (`n--`, `n = 3`), or more than one comparison that may hold apart.
_NOT_ONE = re.compile(r"\+\+|--|\|\||[?,]|(?<![<>=!])=(?!=)")
_ONE_OP = re.compile(r"^(?P<a>[^<>=!]+?)\s*(?P<op><=|>=|==|<|>)\s*(?P<b>[^<>=!]+)$")


def condition_facts(condition: str) -> list[tuple[Poly, bool]]:
    """The facts a true `condition` gives: each comparison of an `&&` (else none).

    Refused whole (an empty list) when a part is no affine comparison or the
    condition writes (`n--`, `n = 3`): then it proves nothing.
    """
    text = condition.strip()
    while text.startswith("(") and text.endswith(")") and balanced(text[1:-1]):
        text = text[1:-1].strip()
    if _NOT_ONE.search(text):
        return []
    out: list[tuple[Poly, bool]] = []
    for part in _top_split(text, "&&"):
        part = part.strip()
        while part.startswith("(") and part.endswith(")") and balanced(part[1:-1]):
            part = part[1:-1].strip()
        match = _ONE_OP.fullmatch(part)
        if match is None:
            return []
        flipped = f"{match['a']} {_OPPOSITE[match['op']]} {match['b']}"
        found = _comparison(flipped)
        if found is None:
            return []
        out.append(found)
    return out


def _comparison(text: str) -> tuple[Poly, bool] | None:
    """`!(a < b)` as `a - b >= 0` (and the other operators); None if not affine."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")") and balanced(text[1:-1]):
        text = text[1:-1].strip()
    match = _COMPARE.fullmatch(text)
    if match is None or not (balanced(match["a"]) and balanced(match["b"])):
        return None
    if CAST.search(text):
        return None
    left, right = expression_poly(match["a"]), expression_poly(match["b"])
    if left is None or right is None:
        return None
    if any(len(m) > 1 for p in (left, right) for m, _ in p.terms):
        return None
    op = match["op"]
    negated = {
        "<": (left - right, False),  # a >= b
        "<=": (left - right - Poly.const(1), False),  # a > b
        ">": (right - left, False),  # a <= b
        ">=": (right - left - Poly.const(1), False),  # a < b
        "!=": (left - right, True),  # a == b
    }
    return negated.get(op)


def _top_split(text: str, word: str) -> list[str]:
    """`text` cut at each `word` outside parentheses."""
    parts, depth, start, pos = [], 0, 0, 0
    while pos < len(text):
        char = text[pos]
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and text.startswith(word, pos):
            parts.append(text[start:pos])
            pos += len(word)
            start = pos
            continue
        pos += 1
    parts.append(text[start:])
    return parts


def condition_sides(condition: str, negate: bool) -> list[tuple[str, str]]:
    """The two sides of each comparison, in the order of the facts it gives.

    `negate`: those of `negated_facts` (an `||`), else of `condition_facts`.
    Empty where a part is no single comparison.
    """
    text = _unwrapped(condition)
    out: list[tuple[str, str]] = []
    for part in _top_split(text, "||" if negate else "&&"):
        match = _COMPARE.fullmatch(_unwrapped(part)) or _ONE_OP.fullmatch(
            _unwrapped(part)
        )
        if match is None:
            return []
        out.append((match["a"].strip(), match["b"].strip()))
    return out


def _unwrapped(text: str) -> str:
    text = text.strip()
    while text.startswith("(") and text.endswith(")") and balanced(text[1:-1]):
        text = text[1:-1].strip()
    return text
