"""Scalar members reached through a pointer that keep one value through a region.

`for (int i = 1; i < s->n - 1; i++)` in a region, or in a callee given `s`: when
the region never sets `s`, and neither it nor any function of the file it calls
(at any depth) sets a member named `n` (through any pointer or structure: an
alias of `s` may be used), nor hands `s` to a function outside the file, every
thread and task reads one `s->n`. The loop then sweeps a known range, as it
does for a bound over a plain shared variable.
"""

from __future__ import annotations

import re

from accls.frontend import Function, Poly, SourceFile

__all__ = ["callee_scalar_members", "steady_arrows"]

_ARROW = re.compile(r"([A-Za-z_]\w*)->([A-Za-z_]\w*)")
_MEMBER_ARG = re.compile(r"&?\s*([A-Za-z_]\w*)\s*->\s*[A-Za-z_]\w*")


def _sets_member(fn: Function, member: str, start: int, end: int) -> bool:
    """True if `fn` sets a member named `member` between bytes `start` and `end`."""
    return any(
        r.member
        and r.is_write
        and not r.subscripts
        and start <= r.span.start_byte < end
        and re.search(rf"(?:\.|->){re.escape(member)}$", r.name)
        for r in fn.refs
    )


def _reached(fn: Function, source: SourceFile, start: int, end: int) -> list[str]:
    """The calls made between `start` and `end`, and theirs, at any depth."""
    todo = [c.name for c in fn.call_sites if start <= c.span.start_byte < end]
    seen: list[str] = []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        callee = source.function(name)
        if callee is not None:
            todo.extend(callee.calls)
    return seen


def _steady(
    base: str, member: str, fn: Function, source: SourceFile, start: int, end: int
) -> bool:
    if _sets_member(fn, member, start, end):
        return False
    for name in _reached(fn, source, start, end):
        callee = source.function(name)
        if callee is not None:
            whole = callee.span
            if _sets_member(callee, member, whole.start_byte, whole.end_byte):
                return False
            continue
        for call in fn.call_sites:
            if call.name != name or not start <= call.span.start_byte < end:
                continue
            for arg in call.args:
                # `omp_set_lock(&s->lock)` hands out a member, not the structure
                if re.search(rf"\b{re.escape(base)}\b", arg) and not (
                    (m := _MEMBER_ARG.fullmatch(arg.strip())) and m.group(1) == base
                ):
                    return False
    return True


def steady_arrows(
    invariant: frozenset[str],
    fn: Function,
    source: SourceFile,
    span: tuple[int, int],
    moving: set[str],
) -> frozenset[str]:
    """`invariant` less the paths `p->n` whose `p` moves or whose `n` a call may set.

    `moving`: the names the region (bytes `span` of `fn`) assigns, declares, or
    takes the address of.
    """
    start, end = span
    out: set[str] = set()
    for name in invariant:
        path = _ARROW.fullmatch(name)
        if path is None:
            if "->" not in name:
                out.add(name)
            continue
        base, member = path.group(1), path.group(2)
        if base not in moving and _steady(base, member, fn, source, start, end):
            out.add(name)
    return frozenset(out)


def callee_scalar_members(
    param: str,
    var: str,
    callee: Function,
    fn: Function,
    source: SourceFile,
    region: tuple[int, int],
) -> dict[str, Poly]:
    """The callee's `param->n` as the caller's steady `var->n`.

    `var` is a pointer the region (bytes `region` of the caller `fn`) never sets.
    """
    if any(r.name == param and r.is_write for r in callee.refs):
        return {}
    out: dict[str, Poly] = {}
    start, end = region
    for ref in callee.refs:
        path = _ARROW.fullmatch(ref.name) if ref.member else None
        if path is None or path.group(1) != param or ref.subscripts:
            continue
        if _steady(var, path.group(2), fn, source, start, end):
            out[ref.name] = Poly.sym(f"{var}->{path.group(2)}")
    return out
