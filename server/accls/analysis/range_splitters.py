"""A recursion that splits a range in halves down to a leaf call, seen as that call.

`split(l, lo, hi, depth)` running `if (small) { smooth(l, lo, hi); return; }`,
then `mid = lo + (hi - lo) / 2`, `split(l, lo, mid, ..)` and `split(l, mid, hi, ..)`
reaches, over all its levels, exactly the elements `smooth(l, lo, hi)` reaches:
the leaves' ranges partition `lo..hi` (`mid` lies between its ends), and the leaf
uses its range parameters only as the bounds of unit-step loops, so the union of
its accesses over the parts is its accesses over the whole. The call of the
recursion is then modelled as the one leaf call.

Only that shape qualifies: no statement but the guarded leaf call and its
`return`, the midpoint and the two recursive calls; pragmas around them only of
`parallel` and `sections` (whose threads are done when the call returns: no task
outlives it); the other arguments passed through unchanged where the leaf uses
them, and nothing of the function written but the midpoint.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.frontend import Call, Function, Loop, Ref, SourceFile

__all__ = ["split_leaf"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_PRAGMA = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+(.*)$", re.MULTILINE)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_SHAPE = re.compile(
    r"if\s*\([^{};]*\)\s*\{\s*(?P<leaf>\w+\s*\([^;{}]*\))\s*;\s*return\s*;\s*\}"
    r"\s*(?:(?:int|long|size_t|unsigned)\s+)?(?P<mid>[A-Za-z_]\w*)\s*=\s*"
    r"(?P<value>[^;{}]+);(?P<rest>.*)",
    re.DOTALL,
)
_RECURSION = re.compile(r"\s*(?P<name>\w+)\s*\((?P<args>[^;{}]*)\)\s*;")
_THREADS = frozenset({"parallel", "sections", "section"})


def split_leaf(call: Call, source: SourceFile) -> Call | None:
    """The leaf call whose accesses `call` of a range-splitting recursion reaches."""
    fn = source.function(call.name)
    if fn is None or len(call.args) != len(fn.params):
        return None
    body = _body(fn, source)
    shape = None if body is None else _SHAPE.fullmatch(body.strip())
    if shape is None:
        return None
    leaf_text, mid, value = shape["leaf"], shape["mid"], shape["value"]
    recursive = _two_calls(shape["rest"], fn.name)
    if recursive is None:
        return None
    params = [p.name for p in fn.params]
    written = {r.name for r in fn.refs if r.is_write}
    if written - {mid} or mid in params:
        return None  # a parameter moves, or something else is set
    ends = _ends(recursive, params, mid)
    if ends is None:
        return None
    lo, hi = ends
    if "".join(value.split()) not in (f"{lo}+({hi}-{lo})/2", f"({lo}+{hi})/2"):
        return None
    leaf = next((c for c in fn.call_sites if c.name != fn.name), None)
    others = [c for c in fn.call_sites if c.name != fn.name]
    if leaf is None or len(others) != 1 or not leaf_text.startswith(leaf.name):
        return None
    used = {name for arg in leaf.args for name in _NAME.findall(arg)}
    if mid in used or not used <= set(params):
        return None
    for k, name in enumerate(params):
        moved = any(args[k] != name for args in recursive)
        if name in used and name not in (lo, hi) and moved:
            return None  # the leaf's other inputs change down the recursion
    if not _bounds_only(leaf, lo, hi, source):
        return None
    values = dict(zip(params, call.args, strict=True))
    args = tuple(_substituted(arg, values) for arg in leaf.args)
    return replace(call, name=leaf.name, args=args)


def _body(fn: Function, source: SourceFile) -> str | None:
    """The function's body text without comments, its pragmas checked and dropped."""
    text = source.data[fn.span.start_byte : fn.span.end_byte].decode("utf-8", "replace")
    text = _COMMENT.sub(" ", text)
    for match in _PRAGMA.finditer(text):
        words = set(match.group(1).replace("(", " ").split())
        if not words or match.group(1).split()[0] not in _THREADS:
            return None
        if words & {"task", "taskloop", "nowait"}:
            return None
    text = _PRAGMA.sub(" ", text)
    start, end = text.find("{"), text.rfind("}")
    return None if start < 0 or end <= start else text[start + 1 : end]


def _two_calls(rest: str, name: str) -> list[tuple[str, ...]] | None:
    """The argument texts of the two recursive calls, the only statements left."""
    text = rest.replace("{", " ").replace("}", " ")
    out: list[tuple[str, ...]] = []
    at = 0
    while text[at:].strip():
        match = _RECURSION.match(text, at)
        if match is None or match["name"] != name:
            return None
        out.append(tuple(" ".join(a.split()) for a in match["args"].split(",")))
        at = match.end()
    return out if len(out) == 2 else None


def _ends(
    recursive: list[tuple[str, ...]], params: list[str], mid: str
) -> tuple[str, str] | None:
    """(lo, hi): the parameters the calls pass as `(lo, mid)` and `(mid, hi)`."""
    first, second = recursive
    if len(first) != len(params) or len(second) != len(params):
        return None
    low = [k for k, a in enumerate(first) if a == params[k] and second[k] == mid]
    high = [k for k, a in enumerate(second) if a == params[k] and first[k] == mid]
    if len(low) != 1 or len(high) != 1:
        return None
    return params[low[0]], params[high[0]]


def _bounds_only(leaf: Call, lo: str, hi: str, source: SourceFile) -> bool:
    """True when the leaf takes `lo` and `hi` whole, only as its loops' bounds."""
    callee = source.function(leaf.name)
    if callee is None or len(leaf.args) != len(callee.params):
        return False
    names = [p.name for p in callee.params]
    if leaf.args.count(lo) != 1 or leaf.args.count(hi) != 1:
        return False
    low, high = names[leaf.args.index(lo)], names[leaf.args.index(hi)]
    if any({lo, hi} & set(_NAME.findall(a)) for a in leaf.args if a not in (lo, hi)):
        return False  # `a + lo`: the parts' would differ from the whole's
    ranged = [
        lp
        for lp in source.loops()
        if callee.span.start_byte <= lp.id < callee.span.end_byte
        and lp.lower_text.strip() == low
        and lp.upper_text.strip() == high
        and lp.step == 1
        and lp.cond_op in ("<", "<=")
        and lp.var_declared
    ]
    if len(ranged) != 1:
        return False  # `i` and `j` both over `lo..hi`: a square is no union of parts
    loop = ranged[0]
    header = loop.header
    for ref in callee.refs:
        at = ref.span.start_byte
        if ref.name in (low, high):
            if ref.is_write or not header.start_byte <= at < header.end_byte:
                return False  # `a[lo]`, `i - lo`: the parts would differ
        elif loop.span.start_byte <= at < loop.span.end_byte and _carried(
            ref, callee, loop
        ):
            return False  # `a[k++]`: an iteration's elements depend on the ones before
    return True


def _carried(ref: Ref, callee: Function, loop: Loop) -> bool:
    """True for a plain write in the loop of a variable declared outside it."""
    if not ref.is_write or ref.subscripts or ref.member or ref.deref:
        return False
    var = callee.lookup(ref.name)
    if var is None or var.span is None:
        return True  # a global: it outlives the iteration
    return not loop.span.start_byte <= var.span.start_byte < loop.span.end_byte


def _substituted(arg: str, values: dict[str, str]) -> str:
    """The leaf's argument in the caller's names."""
    if arg in values:
        return values[arg]
    return _NAME.sub(lambda m: f"({values[m[0]]})" if m[0] in values else m[0], arg)
