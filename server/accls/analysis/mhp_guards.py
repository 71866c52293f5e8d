"""Conditions on the thread number, as isl rows: which threads run a branch."""

from __future__ import annotations

import re
from collections.abc import Sequence

from accls.analysis.mhp_constructs import contains, first_word
from accls.analysis.polyhedra import Row, build, is_empty, row
from accls.analysis.pragma_scope import list_names
from accls.frontend import Function, Region, SourceFile

__all__ = [
    "Guard",
    "copied_in_pointers",
    "copied_pointer",
    "guard_of",
    "thread_branch",
    "threads_meet",
]

Guard = tuple[tuple[Row, ...], ...]
"""Alternatives (an `or` of `and`s) over the key `t` and helper keys `t.*`."""

_LIT = r"(-?\d+)"
_MOD = re.compile(rf"^(?P<t>\w+)%{_LIT}(?:(?P<op>==|!=){_LIT})?$")
_CMP = re.compile(rf"^(?P<t>\w+)(?P<op>==|!=|<=|>=|<|>){_LIT}$")
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
_NEGATE = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}


def _compare(op: str, value: int) -> Guard:
    """`t OP value` as alternatives."""
    if op == "==":
        return ((row({"t": 1}, -value, equality=True),),)
    if op == "!=":
        return ((row({"t": 1}, -value - 1),), (row({"t": -1}, value - 1),))
    if op in ("<", "<="):
        return ((row({"t": -1}, value - (op == "<")),),)
    return ((row({"t": 1}, -value - (op == ">")),),)


def _modulo(k: int, op: str, c: int) -> Guard | None:
    """`t % k OP c` for a positive k: t = k*q + r with 0 <= r < k."""
    if k <= 0:
        return None
    base = (
        row({"t": 1, "t.q": -k, "t.r": -1}, 0, equality=True),
        row({"t.r": 1}),
        row({"t.r": -1}, k - 1),
    )
    if op == "==":
        return ((*base, row({"t.r": 1}, -c, equality=True)),)
    return ((*base, row({"t.r": 1}, -c - 1)), (*base, row({"t.r": -1}, c - 1)))


def _atom(text: str, tids: frozenset[str], negate: bool) -> Guard | None:
    text = text.replace("omp_get_thread_num()", "omp_get_thread_num")
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    if text.startswith("!"):
        return _atom(text[1:], tids, not negate)
    names = tids | {"omp_get_thread_num"}
    mod = _MOD.match(text)
    if mod is not None and mod.group("t") in names:
        op = mod.group("op") or "!="  # `t % k` alone: true when not 0
        c = int(mod.group(4) or 0)
        return _modulo(int(mod.group(2)), _NEGATE[op] if negate else op, c)
    cmp = _CMP.match(text)
    if cmp is None:
        flipped = re.match(rf"^{_LIT}(==|!=|<=|>=|<|>)(\w+)$", text)
        if flipped is None or flipped.group(3) not in names:
            return None
        op = _FLIP[flipped.group(2)]
        return _compare(_NEGATE[op] if negate else op, int(flipped.group(1)))
    if cmp.group("t") not in names:
        return None
    op = cmp.group("op")
    return _compare(_NEGATE[op] if negate else op, int(cmp.group(3)))


def guard_of(condition: str, tids: frozenset[str], negate: bool) -> Guard | None:
    """The threads for which `condition` holds (fails when `negate`); None: unread."""
    text = "".join(condition.split())
    parts = text.split("&&")
    if negate and len(parts) > 1:
        return None  # `!(a && b)` is an `or` of negations: not followed
    out: Guard = ((),)
    for part in parts:
        atom = _atom(part, tids, negate)
        if atom is None:
            return None
        out = tuple((*left, *right) for left in out for right in atom)
    return out


def _side(rows: Sequence[Row], side: int, index: int) -> list[Row]:
    """Rows for one side's thread; helper keys get the guard's own index."""

    def key(name: str) -> str:
        return f"t@{side}" if name == "t" else f"{name}{index}@{side}"

    return [
        Row(tuple((key(k), c) for k, c in r.coeffs), r.const, r.equality) for r in rows
    ]


def threads_meet(
    first: Sequence[Guard], second: Sequence[Guard], team: int
) -> bool | None:
    """Whether two different threads of a `team`-thread team satisfy the guards.

    None when the alternatives are too many to try.
    """
    base = [
        row({"t@1": 1}),
        row({"t@2": 1}),
        row({"t@1": -1}, team - 1),
        row({"t@2": -1}, team - 1),
    ]
    choices: list[list[Row]] = [base]
    for side, guards in ((1, first), (2, second)):
        for index, guard in enumerate(guards):
            choices = [
                [*rows, *_side(alt, side, index)] for rows in choices for alt in guard
            ]
            if len(choices) > 64:
                return None
    orders = (row({"t@2": 1, "t@1": -1}, -1), row({"t@1": 1, "t@2": -1}, -1))
    return any(
        not is_empty(build([*rows, order])) for rows in choices for order in orders
    )


_TID = re.compile(rb"([A-Za-z_]\w*)\s*=\s*omp_get_thread_num\s*\(")


def thread_branch(region: Region, source: SourceFile, pos: int) -> bool:
    """True when `pos` lies in an `if` arm of the region whose test names the thread.

    The test calls `omp_get_thread_num()` or reads a variable the region declares
    (`tid = omp_get_thread_num()`): threads may take different arms, and a
    barrier there is met by some threads only.
    """
    text = source.data[region.span.start_byte : region.span.end_byte]
    own = {n.decode() for n in _TID.findall(text)}
    for branch in source.branches:
        span = branch.span
        if branch.kind not in ("if", "else") or not contains(region, span.start_byte):
            continue
        if not span.start_byte <= pos < span.end_byte:
            continue
        names = set(re.findall(r"[A-Za-z_]\w*", branch.condition))
        if "omp_get_thread_num" in names or names & own:
            return True
    return False


def copied_pointer(inner: list[Region], name: str, pos: int) -> bool:
    """True when a `single copyprivate(name)` ended before `pos`.

    Every thread's private `name` then holds the value one thread set: through a
    pointer, all threads reach the same object.
    """
    return any(
        first_word(c) == "single"
        and c.span.end_byte <= pos
        and any(
            cl.name == "copyprivate"
            and name in {a.strip() for a in (cl.args or "").split(",")}
            for cl in c.directive.clauses
        )
        for c in inner
    )


_COPYING = frozenset({"copyin", "firstprivate"})


def copied_in_pointers(
    region: Region, fn: Function, source: SourceFile
) -> frozenset[str]:
    """The pointers of the region's `copyin`/`firstprivate` the region never sets.

    The copies hold the encountering thread's value: through them, all threads
    reach the same object.
    """
    return frozenset(n for n in _named(region) if _fixed_pointer(region, fn, source, n))


def _named(construct: Region) -> set[str]:
    return {
        n
        for c in construct.directive.clauses
        if c.name in _COPYING
        for n in list_names(c.args or "")
    }


def _fixed_pointer(region: Region, fn: Function, source: SourceFile, name: str) -> bool:
    """True for a pointer the region never sets: its copies all hold one address."""
    var = fn.lookup(name) or next((v for v in source.globals if v.name == name), None)
    if var is None or var.pointers < 1 or var.dims:
        return False
    start, end = region.span.start_byte, region.span.end_byte
    return not any(
        r.name == name
        and r.is_write
        and not r.subscripts
        and not r.deref
        and start <= r.span.start_byte < end
        for r in fn.refs
    )
