"""Dependences that ordered blocks, linear steps or permutations rule out."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from accls.analysis.mhp_uniform import set_once
from accls.analysis.model import Dependence
from accls.analysis.races_thread_slots import team_region, thread_owned
from accls.frontend import Directive, Loop, Ref, SourceFile, Span

__all__ = [
    "in_blocks",
    "linear_disjoint",
    "linear_offset",
    "linear_steps",
    "one_iteration",
    "ordered_blocks",
    "permuted_index",
    "pinned_arm",
    "thread_slot",
]

_NAME = re.compile(r"[A-Za-z_]\w*")
_LINEAR = re.compile(
    r"^\s*([A-Za-z_][\w\s,]*?)\s*(?::\s*(?:step\s*\(\s*)?(-?\d+)\s*\)?)?\s*$"
)


def ordered_blocks(source: SourceFile, loop: Loop) -> list[Span] | None:
    """The `ordered` blocks inside the loop; None when they use doacross `depend`.

    Each block runs in iteration order, one at a time: two references that both
    sit in blocks cannot race. A doacross `ordered(n)` loop orders more than the
    blocks, which this does not follow.
    """
    blocks: list[Span] = []
    for region in source.constructs:
        words = region.directive.name.split()
        if not words or words[0] != "ordered":
            continue
        if not loop.body.start_byte <= region.span.start_byte < loop.body.end_byte:
            continue
        if region.directive.clause("depend") is not None or any(
            c.name in ("doacross", "sink", "source") for c in region.directive.clauses
        ):
            return None
        blocks.append(region.span)
    return blocks


def in_blocks(span: Span, blocks: Sequence[Span]) -> bool:
    """True when `span` lies inside one of `blocks`."""
    return any(b.start_byte <= span.start_byte < b.end_byte for b in blocks)


def linear_steps(directive: Directive) -> dict[str, int]:
    """`linear(j:2)`, `linear(j, k)` and `linear(j: step(2))` as name to step."""
    out: dict[str, int] = {}
    for clause in directive.clauses:
        if clause.name != "linear" or not clause.args:
            continue
        match = _LINEAR.match(clause.args)
        if match is None:
            continue
        step = int(match.group(2)) if match.group(2) else 1
        for name in match.group(1).split(","):
            if name.strip().isidentifier():
                out[name.strip()] = step
    return out


def linear_offset(ref: Ref, var: str) -> int | None:
    """C when the only subscript of `ref` is `var + c`; None otherwise."""
    if len(ref.subscripts) != 1 or ref.subscripts[0].poly is None:
        return None
    const = 0
    seen = False
    for mono, coeff in ref.subscripts[0].poly.terms:
        if mono == ():
            const = coeff
        elif mono == (var,) and coeff == 1:
            seen = True
        else:
            return None
    return const if seen else None


def linear_disjoint(
    dep: Dependence, directive: Directive, refs: dict[Span, Ref], loop: Loop
) -> bool:
    """True when a `linear(j:s)` variable keeps the pair apart across iterations.

    Iteration k sees `j0 + s*k` until the body changes j: `a[j + c]` and
    `a[j + c']` meet in two iterations only if `s` divides `c' - c`, which
    cannot happen when `|c' - c| < |s|` and c, c' are read before j changes.
    """
    pair = [refs.get(dep.source), refs.get(dep.sink)]
    if any(r is None for r in pair):
        return False
    for var, step in linear_steps(directive).items():
        offsets = [linear_offset(r, var) for r in pair if r is not None]
        if any(o is None for o in offsets) or step == 0:
            continue
        first_write = min(
            (r.span.start_byte for r in loop.refs if r.name == var and r.is_write),
            default=loop.span.end_byte,
        )
        before = all(r is not None and r.span.start_byte < first_write for r in pair)
        low, high = min(o or 0 for o in offsets), max(o or 0 for o in offsets)
        if before and high - low < abs(step):
            return True
    return False


def _affine(expr: str, var: str) -> tuple[int, frozenset[str]] | None:
    """The coefficient of `var` in `expr` and its other names; None if not affine."""
    try:
        tree = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError:
        return None

    def walk(node: ast.expr) -> tuple[int, int, frozenset[str]] | None:
        # (coefficient of var, constant part, other names)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return 0, node.value, frozenset()
        if isinstance(node, ast.Name):
            if node.id == var:
                return 1, 0, frozenset()
            return 0, 0, frozenset({node.id})
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = walk(node.operand)
            return None if inner is None else (-inner[0], -inner[1], inner[2])
        if isinstance(node, ast.BinOp) and isinstance(
            node.op, (ast.Add, ast.Sub, ast.Mult)
        ):
            left, right = walk(node.left), walk(node.right)
            if left is None or right is None:
                return None
            names = left[2] | right[2]
            if isinstance(node.op, ast.Mult):
                for one, other in ((left, right), (right, left)):
                    if one[0] == 0 and not one[2]:  # a constant factor
                        return one[1] * other[0], one[1] * other[1], other[2]
                return None if left[0] or right[0] else (0, 0, names)
            sign = 1 if isinstance(node.op, ast.Add) else -1
            return left[0] + sign * right[0], left[1] + sign * right[1], names
        return None

    found = walk(tree)
    return None if found is None else (found[0], found[2])


def permuted_index(
    dep: Dependence, refs: dict[Span, Ref], loop: Loop, source: SourceFile
) -> bool:
    """True when both sides are `a[idx[i]]` and `idx` holds distinct values.

    `idx` must be a local array of the function whose only writes are one
    loop, before this one and over the same bounds, that stores
    `idx[k] = c*k + e` with c nonzero and e unchanged by that loop: each
    iteration then reaches its own element.
    """
    pair = [refs.get(dep.source), refs.get(dep.sink)]
    texts = {
        "".join(r.subscripts[0].text.split())
        for r in pair
        if r is not None and len(r.subscripts) == 1
    }
    if len(texts) != 1 or any(r is None or len(r.subscripts) != 1 for r in pair):
        return False
    match = re.fullmatch(r"([A-Za-z_]\w*)\[([A-Za-z_]\w*)\]", texts.pop())
    if match is None or match.group(2) != loop.var:
        return False
    index = match.group(1)
    fn = next((f for f in source.functions if f.name == loop.function), None)
    if fn is None or not any(v.name == index and v.dims for v in fn.locals):
        return False
    writes = [r for r in fn.refs if r.name == index and r.is_write]
    writers = [
        other
        for other in source.loops()
        if other.function == fn.name
        and other.span.end_byte <= loop.span.start_byte
        and all(
            other.body.start_byte <= w.span.start_byte < other.body.end_byte
            for w in writes
        )
    ]
    if not writes or not writers:
        return False
    writer = min(writers, key=lambda other: other.span.end_byte - other.span.start_byte)
    same_range = (
        writer.lower_text == loop.lower_text
        and writer.upper_text == loop.upper_text
        and writer.cond_op == loop.cond_op
        and writer.step == loop.step
    )
    if not same_range or writer.var is None or len(writes) != 1:
        return False
    body = source.data[writer.body.start_byte : writer.body.end_byte].decode(
        "utf-8", "replace"
    )
    store = re.search(
        rf"\b{re.escape(index)}\s*\[\s*{re.escape(writer.var)}\s*\]\s*=\s*([^;=]+);",
        body,
    )
    if store is None:
        return False
    found = _affine(store.group(1), writer.var)
    if found is None or found[0] == 0:
        return False
    changed = {r.name for r in writer.refs if r.is_write} - {index}
    return not (found[1] & changed) and not (
        set(_NAME.findall(store.group(1))) & {index}
    )


def pinned_arm(span: Span, loop: Loop, source: SourceFile) -> int | None:
    """The `if (i == K)` arm around `span` that one iteration of `loop` runs."""
    if not loop.var:
        return None
    written = {r.name for r in loop.refs if r.is_write}
    for branch in source.branches:
        if branch.kind != "if" or not branch.span.start_byte <= span.start_byte:
            continue
        if span.start_byte >= branch.span.end_byte:
            continue
        if not loop.body.start_byte <= branch.span.start_byte < loop.body.end_byte:
            continue
        for part in branch.condition.strip().strip("()").split("&&"):
            sides = ["".join(s.split()).strip("()") for s in part.split("==")]
            if len(sides) != 2 or loop.var not in sides:
                continue
            other = sides[1] if sides[0] == loop.var else sides[0]
            fixed = other.lstrip("-").isdigit() or (
                other.isidentifier() and other not in written
            )
            if fixed:
                return branch.span.start_byte
    return None


def one_iteration(dep: Dependence, loop: Loop, source: SourceFile) -> bool:
    """True when both ends sit in one `if (i == K)` arm: a single iteration runs them.

    Two instances of such references never come from different iterations, so
    the loop carries no dependence between them.
    """
    if dep.carrier != loop.id:
        return False
    arm = pinned_arm(dep.source, loop, source)
    return arm is not None and arm == pinned_arm(dep.sink, loop, source)


def _tid_names(loop: Loop, source: SourceFile) -> set[str]:
    """Locals set from `omp_get_thread_num()` once, and never changed after.

    A thread number clamped afterwards (`if (t >= n) t = n - 1;`) no longer
    gives each thread its own value: the team's region (or the function of an
    orphaned loop) must set the name only there.
    """
    fn = source.function(loop.function) if loop.function else None
    if fn is None:
        return set()
    region = team_region(loop, source)
    start, end = (region or fn).span.start_byte, (region or fn).span.end_byte
    text = source.data[start:end].decode("utf-8", "replace")
    names = set(
        re.findall(r"\b([A-Za-z_]\w*)\s*=\s*omp_get_thread_num\s*\(\s*\)\s*[;,]", text)
    )
    written = {r.name for r in loop.refs if r.is_write}
    return {
        n
        for n in names
        if n not in written
        and set_once(n, text)
        and any(v.name == n for v in fn.locals)
    }


def thread_slot(
    dep: Dependence, refs: dict[Span, Ref], loop: Loop, source: SourceFile
) -> bool:
    """True for `a[t]` on both sides with `t` the thread number: one thread's slot.

    Iterations that meet at one element run on one thread, one after another.
    """
    pair = [refs.get(dep.source), refs.get(dep.sink)]
    if any(r is None or not r.subscripts for r in pair):
        return False
    texts = {tuple("".join(s.text.split()) for s in r.subscripts) for r in pair if r}
    if len(texts) != 1:
        return False
    subs = texts.pop()
    tids = _tid_names(loop, source) | {"omp_get_thread_num()"}
    written = {r.name for r in loop.refs if r.is_write}
    first = subs[0]
    if first not in tids and not thread_owned(first, loop, source):
        return False
    rest = {n for s in subs[1:] for n in _NAME.findall(s)}
    return not rest & (written | {loop.var or ""})
