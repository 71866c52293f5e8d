"""Integer sums and products of floating values: each step truncates the total.

`int s; s += a[i]` with `double a[]` is `s = (int)(s + a[i])`: the running total
is cut to an integer at every step, so the sum depends on how the values are
grouped. With `a` alternately -0.5 and 1.5 the serial loop leaves 1 (each pair
goes 0 -> 0 -> 1 -> 0 ...), where four threads, each truncating its own part
and adding the parts, give 4. The same holds for `*=`. An integer update whose
value is an integer (a comparison, a cast to an integer type, integer
variables) is exact and stays a reduction; floating totals, which compilers
and experts reassociate, are left alone.
"""

from __future__ import annotations

import re

from accls.analysis.deduced_types import declared_scalar
from accls.analysis.model import Obstacle, ScalarFact
from accls.analysis.reduction_refusals import (
    FLOATING,
    refuse_reductions,
    scalar_decl,
    stored_values,
)
from accls.frontend import Function, Loop, RedOp, SourceFile, Var

__all__ = ["converted_sums"]

_INTEGER_WORDS = frozenset(
    {
        "char", "short", "int", "long", "unsigned", "signed", "size_t", "ssize_t",
        "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
        "uint16_t", "uint32_t", "uint64_t",
    }
)  # fmt: skip
# C's `0.5`, `1e3`, `2.f`; Fortran's `1.5d0`, `0.5_dp`.
_FLOAT_LITERAL = re.compile(
    r"(?<![\w.])(?:\d+\.\d*|\.\d+|\d+(?:\.\d*)?[eEdD][+-]?\d+)"
    r"(?:[fFlL]|_\w+)?(?![\w.])"
    r"|(?<![\w.])\d+[fF](?!\w)"
)
# Functions whose value is an integer whatever their argument (C and Fortran).
_TO_INTEGER = re.compile(
    r"lround|llround|lrint|llrint|int|nint|floor|ceiling|idint|idnint|size"
    r"|len|count|lbound|ubound",
    re.IGNORECASE,
)
_CALLED = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\s*\(")
_NAME = re.compile(r"[A-Za-z_]\w*")
_CAST = re.compile(r"\(\s*([A-Za-z_][\w\s]*)\)")
_TESTS = re.compile(r"[<>]=?|==|!=|&&|\|\||!(?!=)")
_MATH = frozenset(
    {
        "sqrt", "pow", "exp", "log", "log2", "log10", "sin", "cos", "tan",
        "fabs", "floor", "ceil", "round", "trunc", "fmod", "fmin", "fmax",
        "atan", "atan2", "cbrt", "hypot", "exp2", "expm1", "log1p", "atof",
        "strtod", "drand48", "erand48", "real", "dble", "sngl", "float", "dsqrt",
    "dexp", "dlog", "dabs",
    }
)  # fmt: skip


def _range_elements(loop: Loop, source: SourceFile) -> dict[str, set[str]]:
    """The variables of the range-based `for` loops around or inside `loop`, typed."""
    found: dict[str, set[str]] = {}
    start, end = loop.span.start_byte, loop.span.end_byte
    todo = [n for n in source.nests if n.span.start_byte <= end]
    while todo:
        other = todo.pop()
        inside = start <= other.span.start_byte and other.span.end_byte <= end
        around = other.span.start_byte <= start and end <= other.span.end_byte
        if not (inside or around):
            continue
        if other.range_for is not None and other.range_for.element:
            found.setdefault(other.range_for.element, set()).add(other.range_for.type)
        todo.extend(other.children)
    return found


def _types_of(
    name: str, fn: Function | None, source: SourceFile, loop: Loop
) -> set[str]:
    """The types of every declaration of `name` that the loop may mean.

    A function may declare one name in several blocks (`int x` in one loop,
    `double x` in the next): each declaration whose block overlaps the loop
    counts, so no later `double x` hides behind a first `int x`, and a
    range-based `for`'s variable (which declares no local) has its own type.
    """
    # The variables of range loops the loop holds or lies in may be meant too:
    # `x` is the outer `double x` before an inner `for (int x : v)`.
    elements = _range_elements(loop, source).get(name, set())
    decls: list[Var] = []
    if fn is not None and fn.declarations(name):
        start, end = loop.span.start_byte, loop.span.end_byte
        named = [fn.lookup(name)] if fn.declarations(name) == 1 else fn.locals
        every = [v for v in (*named, *fn.params) if v is not None and v.name == name]
        decls = [
            v
            for v in every
            if (v.span is None or v.span.start_byte < end)
            and (v.scope_end < 0 or v.scope_end > start)
        ]
        if not decls and not elements:
            decls = every  # none in scope (extents not known): each may be meant
    if not decls and not elements:
        glob = scalar_decl(name, None, source)
        decls = [] if glob is None else [glob]
    typed = (declared_scalar(d, source, fn) for d in decls)  # `auto x = 0.0`: double
    return elements | {source.types.scalar_base(t) or t for t in typed}


def _returns_floating(name: str, source: SourceFile) -> bool:
    if name in _MATH or (name[-1:] in ("f", "l") and name[:-1] in _MATH):
        return True
    defined = source.function(name)
    if defined is None:
        return False
    head = source.data[defined.span.start_byte : defined.span.start_byte + 200]
    before = head.split(name.encode(), 1)[0].decode("utf-8", "replace")
    return bool(set(before.split()) & {"double", "float"})


def _top_level(text: str) -> str:
    """The text with every parenthesised part blanked out."""
    out, depth = [], 0
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            continue
        out.append(ch if depth == 0 else " ")
    return "".join(out)


def _wrapped(text: str) -> bool:
    """True for `( ... )` whose first parenthesis closes at its end."""
    depth = 0
    for k, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return k == len(text) - 1 and k > 0
    return False


def _integer_calls(text: str, source: SourceFile) -> str:
    """The text with the arguments of calls whose value is no floating one blanked.

    `nint(x)`, `lround(x)`, and the file's own `int verify(p, L)`: what they
    are given does not make the value floating.
    """
    start = 0
    while (found := _CALLED.search(text, start)) is not None:
        name = found.group(1)
        start = found.end()
        known = _TO_INTEGER.fullmatch(name) is not None or (
            source.function(name) is not None and not _returns_floating(name, source)
        )
        if not known:
            continue
        depth, end = 0, len(text)
        for k in range(found.end() - 1, len(text)):
            depth += text[k] == "("
            depth -= text[k] == ")"
            if depth == 0:
                end = k + 1
                break
        text = text[: found.start()] + " 0 " + text[end:]
        start = found.start() + 3
    return text


def _balanced_end(text: str, at: int) -> int:
    """The offset just past the group that opens at `at` (`(...)` or `[...]`)."""
    depth = 0
    for k in range(at, len(text)):
        depth += text[k] in "(["
        depth -= text[k] in ")]"
        if depth == 0:
            return k + 1
    return len(text)


def _integer_casts(text: str) -> str:
    """The text with each operand cast to an integer type blanked.

    `(long)out[i] * (i % 11)` multiplies integers; `(int)(x * 0.5)` is one.
    """
    start = 0
    while (cast := _CAST.search(text, start)) is not None:
        start = cast.end()
        if not set(cast.group(1).split()) <= _INTEGER_WORDS:
            continue
        at = cast.end()
        while at < len(text) and text[at].isspace():
            at += 1
        if at < len(text) and text[at] == "(":
            end = _balanced_end(text, at)
        else:
            name = _NAME.match(text, at)
            if name is None:
                continue
            end = name.end()
            while True:
                step = re.match(r"\s*(?:\.|->)\s*[A-Za-z_]\w*", text[end:])
                if end < len(text) and text[end] in "([":
                    end = _balanced_end(text, end)
                elif step is not None:
                    end += step.end()
                else:
                    break
        text = text[: cast.start()] + " 0 " + text[end:]
        start = cast.start() + 3
    return text


def _floating(text: str, fn: Function | None, source: SourceFile, loop: Loop) -> bool:
    """True when the expression's value may be floating (conservatively)."""
    text = text.strip()
    while _wrapped(text):
        text = text[1:-1].strip()
    text = _integer_casts(_integer_calls(text, source))
    top = _top_level(text)
    if "?" in top and ":" in top[top.index("?") :]:
        ask = top.index("?")
        colon = top.index(":", ask)
        return _floating(text[ask + 1 : colon], fn, source, loop) or _floating(
            text[colon + 1 :], fn, source, loop
        )
    if _TESTS.search(top.replace("<<", "").replace(">>", "")):
        return False  # a comparison or a logical operator: an `int`
    if _FLOAT_LITERAL.search(text):
        return True
    for match in _NAME.finditer(text):
        word = match.group(0)
        after = text[match.end() :].lstrip()
        if after.startswith("(") and _returns_floating(word, source):
            return True
        if _types_of(word, fn, source, loop) & FLOATING:
            return True
    return False


def _updates(loop: Loop, name: str, data: bytes) -> list[str]:
    """The values the loop's `name += v`, `name *= v`, `name = ...` store."""
    # A C statement ends at `;`, a Fortran one at the line's end (or a comment).
    store = re.compile(
        r"\s*=(?!=)([^\n!;]*)" if loop.fortran else r"\s*[-+*]?=(?!=)([^;]*);"
    )
    return stored_values(loop, name, data, store)


def converted_sums(
    scalars: tuple[ScalarFact, ...],
    obstacles: tuple[Obstacle, ...],
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
) -> tuple[tuple[ScalarFact, ...], tuple[Obstacle, ...]]:
    """The facts left, and an obstacle for each integer total of floating values."""

    def why(fact: ScalarFact) -> str:
        if fact.op not in (RedOp.ADD, RedOp.MUL):
            return ""
        types = _types_of(fact.name, fn, source, loop)
        if not any(t and set(t.split()) <= _INTEGER_WORDS for t in types):
            return ""
        stored = _updates(loop, fact.name, source.data)
        if not any(_floating(v, fn, source, loop) for v in stored):
            return ""
        return (
            f"`{fact.name}` is an integer updated with floating "
            f"values (line {fact.line}): each step truncates the "
            "total, so it depends on how the values are grouped, and threads' "
            "partial totals would add up to another value"
        )

    return refuse_reductions(scalars, obstacles, why)
