"""Small questions about OpenMP constructs of a file: what, where, inside what."""

from __future__ import annotations

import re
from collections.abc import Sequence

from accls.analysis.pragma_scope import clause_names, reduction_ops
from accls.frontend import AccessKind, Branch, Ref, Region

__all__ = [
    "NEST_EXCLUDING",
    "binds_thread",
    "contains",
    "first_word",
    "followed_nest",
    "loop_heads",
    "pragma_at",
    "reduction_combines",
    "within",
]

# worksharing constructs whose reduction each thread combines as it leaves
_COMBINING = frozenset({"for", "loop", "sections", "scope"})


def first_word(region: Region) -> str:
    """The directive's first word: `task`, `for`, `single`, ..."""
    name = region.directive.name
    return name.split()[0] if name else ""


def binds_thread(construct: Region) -> bool:
    """True for a `loop bind(thread)`: each thread runs every iteration itself."""
    clause = construct.directive.clause("bind")
    thread = clause is not None and (clause.args or "").strip() == "thread"
    return first_word(construct) == "loop" and thread


def pragma_at(region: Region) -> int:
    """The byte offset of the construct's pragma line."""
    return region.directive.span.start_byte if region.directive.span else 0


def contains(region: Region, pos: int) -> bool:
    """True if the statement the construct governs holds byte `pos`."""
    return region.span.start_byte <= pos < region.span.end_byte


def within(inner: Region, outer: Region) -> bool:
    """True if `inner` is a construct nested in `outer` (stacked pragmas included)."""
    return (
        pragma_at(inner) > pragma_at(outer)
        and outer.span.start_byte <= inner.span.start_byte
        and inner.span.end_byte <= outer.span.end_byte
    )


def reduction_combines(
    inner: list[Region], refs: Sequence[Ref] = ()
) -> list[tuple[Region, Ref]]:
    """The shared update that ends each `reduction` of a worksharing construct.

    Each thread combines its copy into the shared variable as it leaves the
    construct; only the construct's barrier, if any, makes the result visible.
    The update is named at the construct's own first write of the variable in
    `refs`, or at its pragma. A `lastprivate` item is likewise written back as the
    construct ends, by the thread that ran the last iteration (or section).
    """
    out: list[tuple[Region, Ref]] = []
    for construct in inner:
        span = construct.directive.span
        if first_word(construct) not in _COMBINING or span is None:
            continue
        ops = reduction_ops((construct.directive,))
        last = clause_names((construct.directive,), frozenset({"lastprivate"}))
        for name in sorted(set(ops) | (last - set(ops))):
            kind = AccessKind.UPDATE if name in ops else AccessKind.WRITE
            own = next(
                (
                    r.span
                    for r in refs
                    if r.name == name
                    and r.is_write
                    and contains(construct, r.span.start_byte)
                ),
                span,
            )
            out.append((construct, Ref(name=name, kind=kind, span=own)))
    return out


_OFFLOAD = frozenset({"parallel", "target", "teams"})
_NEST_WORDS = frozenset({"for", "loop", "simd", "critical", "atomic"})
NEST_EXCLUDING = frozenset({"critical", "atomic"})


NESTED_TID = "omp_nested_thread_num"
"""A nested team's thread number: the inner team of every outer thread has each."""
_TID_CALL = re.compile(rb"omp_get_thread_num\s*\(\s*\)")
_SUBSCRIPT = re.compile(rb"\[[^\[\]]*\]")


def _subscript_tids(text: bytes) -> bool:
    """True when the inner team's thread number is only a subscript term."""
    inside = sum(len(_TID_CALL.findall(m.group(0))) for m in _SUBSCRIPT.finditer(text))
    return inside == len(_TID_CALL.findall(text))


def nested_tids(texts: tuple[str, ...], chain: list[Region]) -> tuple[str, ...]:
    """Subscripts with `omp_get_thread_num()` renamed to a name for its value.

    The name is `omp_get_thread_num` itself (the thread number), but inside a
    nested `parallel` it is `NESTED_TID`: the call numbers the inner team, and
    every outer thread's team has a thread 0, so for the outer threads the value
    is one they all share, not their own number.
    """
    nested = any(first_word(c) == "parallel" for c in chain)
    name = NESTED_TID if nested else "omp_get_thread_num"
    return tuple(t.replace("omp_get_thread_num()", name) for t in texts)


def followed_nest(c: Region, inner: list[Region], data: bytes) -> bool:
    """A nested `parallel` whose code every outer thread runs as plain code."""
    if first_word(c) != "parallel" or _OFFLOAD & set(c.directive.name.split()[1:]):
        return False
    text = data[c.span.start_byte : c.span.end_byte]
    if not _subscript_tids(text) or b"omp_" in text.replace(b"omp_get_", b""):
        return False  # the inner team's thread numbers, or its own sync calls
    return all(
        first_word(d) in _NEST_WORDS for d in inner if d is not c and within(d, c)
    )


def loop_heads(data: bytes, branches: Sequence[Branch]) -> tuple[tuple[int, int], ...]:
    """The byte ranges of loop headers: a `while` or `do` condition runs every turn.

    A branch's span is the loop body; its header text is found right before the
    body (`while (c)`, `for (...)`) or, for `do ... while (c);`, right after it.
    """
    out: list[tuple[int, int]] = []
    for branch in branches:
        head = branch.condition.encode("utf-8")
        if branch.kind != "loop" or not head.strip():
            continue
        start, end = branch.span.start_byte, branch.span.end_byte
        before = data.rfind(head, 0, start)
        if before >= 0 and data[before + len(head) : start].strip() in (b"", b")"):
            out.append((before, start))
            continue
        after = data.find(head, end)
        if after >= 0 and re.fullmatch(rb"\s*while\s*\(?\s*", data[end:after]):
            out.append((after, after + len(head)))
    return tuple(out)
