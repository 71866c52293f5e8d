"""ACC101 through two local pointers into one array at constant offsets.

`double *p = a; double *q = a + 1;` and a parallel loop writing `p[i]` and reading
`q[i]` touch `a[i]` and `a[i + 1]`: iteration `i + 1` writes what iteration `i`
reads; so do `q[i]` and `a[i + 1]` themselves. A pointer counts when it is a local
set once, at its declaration, to `x`, `x + c` or `&x[c]` (`c` a literal) of one
array or pointer parameter `x` the function never sets, and the loop indexes it by
`i + k` (`k` a literal) with `i` the loop variable. The pair is reported when the
two element offsets differ by `d != 0` and the loop's literal bounds (object-like
macros expanded) run more than `|d|` iterations; otherwise nothing is said here.
"""

from __future__ import annotations

import re

from accls.analysis.findings import CARRIED_DEPENDENCE, Finding, finding
from accls.analysis.races_call_alias import (
    POINTER_ARG,
    call_alias_findings,
    constant_value,
    index_offset,
)
from accls.frontend import Directive, Function, Loop, Ref, SourceFile

__all__ = ["alias_findings"]


def _base(fn: Function, source: SourceFile, name: str) -> tuple[str, int] | None:
    """(array, offset) a local pointer is set to once, at its declaration.

    An array, or a pointer parameter the function never sets, is its own base.
    """
    if _whole(fn, source, name):
        return name, 0
    var = fn.lookup(name)
    if var is None or var.pointers != 1 or var.dims or var.span is None:
        return None
    if fn.declarations(name) != 1 or var.scope != "local":
        return None
    writes = [r for r in fn.refs if r.name == name and r.is_write and not r.subscripts]
    if any(r.span.start_byte != var.span.start_byte for r in writes):
        return None  # set again later
    text = source.data[var.span.end_byte : var.span.end_byte + 120].decode(
        "utf-8", "replace"
    )
    m = re.match(r"\s*=\s*([^;,]*)[;,]", text)
    if m is None:
        return None
    init = POINTER_ARG.match(m.group(1))
    if init is None:
        return None
    array = init.group(1) or init.group(3)
    offset = int(init.group(2) or init.group(4) or 0)
    return (array, offset) if _whole(fn, source, array) else None


def _whole(fn: Function, source: SourceFile, name: str) -> bool:
    """An array, or a pointer parameter never set in the function: one base."""
    var = fn.lookup(name)
    if var is None and not fn.declarations(name):
        var = next((g for g in source.globals if g.name == name), None)
    if var is None or fn.declarations(name) > 1:
        return False
    if var.dims and not var.pointers:
        return True
    if var.pointers != 1 or var.dims or var.scope != "param":
        return False
    return not any(r.name == name and r.is_write and not r.subscripts for r in fn.refs)


def _local_pointer(fn: Function, name: str) -> bool:
    var = fn.lookup(name)
    return var is not None and var.pointers == 1 and var.scope == "local"


def alias_findings(
    loop: Loop, directive: Directive, source: SourceFile, skip: set[str]
) -> list[Finding]:
    """ACC101 for a write and another access, through two pointers, that meet."""
    fn = source.function(loop.function) if loop.function else None
    if fn is None or not loop.var or loop.step != 1:
        return []
    lo, hi = (
        constant_value(loop.lower_text, source),
        constant_value(loop.upper_text, source),
    )
    if lo is None or hi is None:
        return call_alias_findings(loop, directive, source, skip)
    names = {r.name for r in loop.refs if r.subscripts}
    if not any(_local_pointer(fn, n) for n in names):
        return call_alias_findings(loop, directive, source, skip)  # no alias here
    seen: list[tuple[Ref, str, int]] = []
    for ref in loop.refs:
        base = _base(fn, source, ref.name) if ref.subscripts else None
        k = index_offset(ref, loop.var) if base is not None else None
        if base is None or k is None or {ref.name, base[0]} & skip:
            continue
        seen.append((ref, base[0], base[1] + k))
    for a, array, at in seen:
        for b, other, bt in seen:
            if a.name == b.name or array != other or not a.is_write:
                continue
            d = at - bt
            if d == 0 or hi - lo <= abs(d):
                continue
            set_from = [x for x in (a.name, b.name) if x != array]
            how = (
                f"`{set_from[0]}` is set from `{array}` at a constant offset"
                if len(set_from) == 1
                else f"`{a.name}` and `{b.name}` are set from `{array}` at constant "
                "offsets"
            )
            return [
                finding(
                    CARRIED_DEPENDENCE,
                    a.span,
                    directive=directive.name,
                    line=loop.line,
                    dep=f"`{a.render()}` (line {a.span.line}) and `{b.render()}` "
                    f"(line {b.span.line}) point into `{array}` {abs(d)} element(s) "
                    f"apart: {how}, so iterations that far apart touch one element",
                    source_line=a.span.line,
                    sink_line=b.span.line,
                )
            ]
    return call_alias_findings(loop, directive, source, skip)
