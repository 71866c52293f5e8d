"""Index arrays that repeat a value by construction: `idx[k] = k % 500`, `k / 2`."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from accls.analysis.literal_ints import eval_literal
from accls.analysis.model import Dependence
from accls.frontend import Loop, Ref, SourceFile, Span

__all__ = [
    "colliding_write",
    "distinct_index",
    "int_at",
    "literal_value",
    "loop_range",
    "modulo_collision",
    "repeated_index",
    "value_at",
]

_INDEX = re.compile(r"([A-Za-z_]\w*)\[([A-Za-z_]\w*)\]")
_NAME = re.compile(r"[A-Za-z_]\w*")
_EXPR = re.compile(r"[\w\s+*/%()-]+")
_LIMIT = 1 << 20  # iterations enumerated at most


def literal_value(text: str, source: SourceFile) -> int | None:
    """An integer literal, or a macro `#define N 180` of the file."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if not text.isidentifier():
        return None
    macro = re.search(
        rf"^[ \t]*#[ \t]*define[ \t]+{re.escape(text)}[ \t]+\(?(\d+)\)?[ \t]*$",
        source.text,
        re.M,
    )
    return int(macro.group(1)) if macro is not None else None


def _literal(text: str, loop: Loop, source: SourceFile) -> int | None:
    """A bound's value: a literal, or a local `int n = 1000;` never written again."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    macro = literal_value(text, source)
    if macro is not None:
        return macro
    fn = source.function(loop.function) if loop.function else None
    if fn is None or not text.isidentifier():
        return None
    var = next((v for v in fn.locals if v.name == text and v.span is not None), None)
    if var is None or var.span is None:
        return None
    start = var.span.start_byte
    head = source.data[start : start + 64].decode("utf-8", "replace")
    match = re.match(rf"{re.escape(text)}\s*=\s*(\d+)\s*[,;]", head)
    if match is None:
        return None
    writes = [r for r in fn.refs if r.name == text and r.is_write]
    if any(not start <= r.span.start_byte < start + match.end() for r in writes):
        return None
    return int(match.group(1))


def loop_range(loop: Loop, source: SourceFile) -> range | None:
    """The values of a unit-step `for (k = L; k < U; k++)` with known bounds."""
    low = _literal(loop.lower_text, loop, source)
    high = _literal(loop.upper_text, loop, source)
    if loop.step != 1 or low is None or high is None:
        return None
    end = {"<": high, "<=": high + 1}.get(loop.cond_op or "")
    if end is None or end - low > _LIMIT:
        return None
    return range(low, end)


def int_at(expr: str, var: str, k: int) -> int | None:
    """`expr` at `var = k` with C's integer `/` and `%` on non-negative values."""
    text = re.sub(rf"\b{re.escape(var)}\b", str(k), expr).replace("/", "//")
    try:
        value = eval_literal(ast.parse(text, mode="eval").body)
    except (ArithmeticError, SyntaxError, ValueError):
        return None
    return value if value >= 0 else None


def value_at(text: str, var: str, k: int, source: SourceFile) -> int | None:
    """`text` at `var = k`, its macros replaced by their values; None if unknown."""
    names = set(_NAME.findall(text)) - {var}
    values = {n: literal_value(n, source) for n in names}
    if None in values.values():
        return None
    folded = _NAME.sub(lambda m: str(values.get(m.group(0), m.group(0))), text)
    return int_at(folded, var, k)


def _index_values(
    ref: Ref, loop: Loop, source: SourceFile
) -> tuple[str, int, list[int]] | None:
    """The store `idx[k] = f(k)` (text, line) and the values `a[idx[i]]` meets.

    `idx` must be written by one store `idx[k] = f(k)` in one earlier loop with
    literal bounds and nowhere else in the file, `f` built from `k`, literals and
    `+ - * / %`; the parallel loop runs `i` over literal bounds inside the
    writer's.
    """
    if len(ref.subscripts) != 1 or loop.var is None:
        return None
    match = _INDEX.fullmatch("".join(ref.subscripts[0].text.split()))
    if match is None or match.group(2) != loop.var:
        return None
    found = _index_store(match.group(1), loop, source)
    span_r = loop_range(loop, source)
    if found is None or span_r is None:
        return None
    index, expr, var, line, span_w = found
    if not (span_w.start <= span_r.start and span_r.stop <= span_w.stop):
        return None
    values: list[int] = []
    for k in span_r:
        value = value_at(expr, var, k, source)  # `k % B`: the macro's value
        if value is None:
            return None
        values.append(value)
    return f"{index}[{var}] = {expr}", line, values


def _index_store(
    index: str, loop: Loop, source: SourceFile
) -> tuple[str, str, str, int, range] | None:
    """(`idx`, `f`, `k`, the store's line, `k`'s range) of the one store `idx[k] = f`.

    `idx` is written by that store only, in one loop of literal bounds before
    `loop` in its function, and `f` is built from `k`, literals and `+ - * / %`.
    """
    writes = [
        r for fn in source.functions for r in fn.refs if r.name == index and r.is_write
    ]
    if len(writes) != 1:
        return None
    store = writes[0]
    writer = next(
        (
            other
            for other in source.loops()
            if other.var
            and other.body.start_byte <= store.span.start_byte < other.body.end_byte
            and other.span.end_byte <= loop.span.start_byte
            and other.function == loop.function
        ),
        None,
    )
    if writer is None or writer.var is None:
        return None
    body = source.data[writer.body.start_byte : writer.body.end_byte].decode(
        "utf-8", "replace"
    )
    found = re.search(
        rf"\b{re.escape(index)}\s*\[\s*{re.escape(writer.var)}\s*\]\s*=\s*([^;=]+);",
        body,
    )
    span = loop_range(writer, source)
    if found is None or span is None or not _EXPR.fullmatch(found.group(1)):
        return None
    return index, found.group(1).strip(), writer.var, store.span.line, span


def repeated_index(ref: Ref, loop: Loop, source: SourceFile) -> tuple[str, int] | None:
    """(the store's text, its line) when two iterations meet one element of `idx`."""
    found = _index_values(ref, loop, source)
    if found is None or len(set(found[2])) == len(found[2]):
        return None
    return found[0], found[1]


def distinct_index(ref: Ref, loop: Loop, source: SourceFile) -> bool:
    """True when every iteration reads its own value of `idx` by construction."""
    found = _index_values(ref, loop, source)
    return found is not None and len(set(found[2])) == len(found[2])


def colliding_write(
    dep: Dependence, refs: Mapping[Span, Ref], loop: Loop, source: SourceFile
) -> str:
    """Why two iterations surely write one element at an inexact dependence's source.

    `a[i / 2] = ...` under a loop with known bounds: the subscripts, built from
    the loop variable and literals, are evaluated for every iteration, and the
    write runs in each (no branch or inner loop around it, not atomic).
    """
    ref = None if dep.exact else refs.get(dep.source)
    if ref is None or not ref.is_write or ref.atomic or not ref.subscripts:
        return ""
    if loop.var is None:
        return ""
    tabled = len(ref.subscripts) == 1 and "[" in ref.subscripts[0].text
    if not tabled and not all(_EXPR.fullmatch(s.text) for s in ref.subscripts):
        return ""
    if not tabled and _branched(ref, loop, source):
        return ""
    span = loop_range(loop, source)
    if span is None:
        return ""
    if len(ref.subscripts) == 1 and "[" in ref.subscripts[0].text:
        return _segment_collision(ref, loop, source, span)
    seen: dict[tuple[int, ...], int] = {}
    for k in span:
        values = [value_at(s.text, loop.var, k, source) for s in ref.subscripts]
        if any(v is None for v in values):
            return ""
        key = tuple(v for v in values if v is not None)
        if key in seen:
            element = "][".join(str(v) for v in key)
            return (
                f"iterations {seen[key]} and {k} both write `{ref.name}[{element}]` "
                f"through `{ref.render()}` (line {ref.span.line})"
            )
        seen[key] = k
    return ""


def _branched(ref: Ref, loop: Loop, source: SourceFile) -> bool:
    """True when a branch inside the loop's body holds `ref`."""
    at, body = ref.span.start_byte, loop.body
    return any(
        body.start_byte <= b.span.start_byte
        and b.span != body
        and b.span.start_byte <= at < b.span.end_byte
        for b in source.branches
    )


def modulo_collision(ref: Ref, loop: Loop, source: SourceFile) -> str:
    """Why two iterations surely update one element of `h[e % M]` (pigeonhole).

    C's `e % M` takes at most `2 * M - 1` values (`1 - M` to `M - 1`), whatever
    `e` is, so a loop of more iterations, each running the update once (no
    branch or inner loop around it), meets one element twice.
    """
    if ref.atomic or len(ref.subscripts) != 1 or loop.var is None:
        return ""
    try:
        tree = ast.parse(ref.subscripts[0].text.strip(), mode="eval").body
    except SyntaxError:
        return ""
    if not isinstance(tree, ast.BinOp) or not isinstance(tree.op, ast.Mod):
        return ""
    right = ast.get_source_segment(ref.subscripts[0].text.strip(), tree.right)
    modulus = literal_value(right or "", source)
    span = loop_range(loop, source)
    if not modulus or span is None or len(span) <= 2 * modulus - 1:
        return ""
    inner = any(
        other.span != loop.span
        and loop.body.start_byte <= other.span.start_byte
        and other.span.start_byte <= ref.span.start_byte < other.span.end_byte
        for other in source.loops()
    )
    if inner or _branched(ref, loop, source):
        return ""
    return (
        f"`{ref.render()}` (line {ref.span.line}) takes at most {2 * modulus - 1} "
        f"values of `% {right}`, and each of the loop's {len(span)} iterations "
        "updates one: two iterations update one element"
    )


def _segment_collision(ref: Ref, loop: Loop, source: SourceFile, span: range) -> str:
    """`out[start[i] + k]` over an inner `k` loop, `start[i] = 3 * i` stored before.

    The table's store and the inner loop's literal bounds give the elements each
    iteration writes (all of them: no branch but the inner loop around the
    write); two iterations writing one element race.
    """
    assert loop.var is not None
    text = ref.subscripts[0].text
    inner = [
        lp
        for lp in source.loops()
        if lp.id in ref.loops and lp.id != loop.id and lp.span.start_byte > loop.id
    ]
    if len(inner) > 1 or ref.loops[-1:] != ((inner[0].id,) if inner else (loop.id,)):
        return ""
    ranges = [(lp.var, loop_range(lp, source)) for lp in inner]
    if any(var is None or not found for var, found in ranges):
        return ""  # an inner loop of unknown or no iterations
    if any(
        loop.body.start_byte <= b.span.start_byte <= ref.span.start_byte
        and ref.span.start_byte < b.span.end_byte
        and b.span != loop.body
        and not (b.kind == "loop" and any(lp.body == b.span for lp in inner))
        for b in source.branches
    ):
        return ""
    moving = {var for var, _ in ranges} | {loop.var}
    heads = [(lp.span.start_byte, lp.body.start_byte) for lp in inner]
    if any(
        r.is_write
        and r.name in moving
        and r.span.start_byte >= loop.body.start_byte
        and not any(start <= r.span.start_byte < end for start, end in heads)
        for r in loop.refs
    ):
        return ""  # a body that moves a loop variable
    stores: list[str] = []
    for index in sorted(
        set(re.findall(rf"([A-Za-z_]\w*)\s*\[\s*{loop.var}\s*\]", text))
    ):
        found = _index_store(index, loop, source)
        if found is None:
            return ""
        _, expr, own, line, stored = found
        if not (stored.start <= span.start and span.stop <= stored.stop):
            return ""
        value = re.sub(rf"\b{re.escape(own)}\b", loop.var, expr)
        text = re.sub(rf"\b{index}\s*\[\s*{loop.var}\s*\]", f"({value})", text)
        stores.append(f"`{index}[{own}] = {expr}` (line {line})")
    if "[" in text:
        return ""
    var, steps = ranges[0] if ranges else (loop.var, range(1))
    if var is None or steps is None or len(span) * len(steps) > _LIMIT:
        return ""
    seen: dict[int, int] = {}
    for i in span:
        at = re.sub(rf"\b{loop.var}\b", str(i), text)
        for k in steps:
            element = value_at(at, var, k, source)
            if element is None:
                return ""
            first = seen.setdefault(element, i)
            if first != i:
                return (
                    f"iterations {first} and {i} both write `{ref.name}[{element}]` "
                    f"through `{ref.render()}` (line {ref.span.line}), with "
                    + " and ".join(stores)
                )
    return ""
