"""ACC101 through two pointer parameters a call of the file binds into one array.

`static void shift(double *dst, const double *src, int n)` runs
`dst[i] = src[i] + 1` under `parallel for`; nothing in its body says whether
`dst` and `src` overlap, so the loop alone is taken as written. But a call
`shift(a + 1, a, N)` in the file binds both into the array `a`, one element
apart: during that call iteration `i + 1` reads what iteration `i` writes.

A call counts when each of the two arguments is `x`, `x + c` or `&x[c]` (`c` a
literal) of one array `x` of the caller, or `x`, `x + c` of one pointer `x`, the
parameters are never set in the function, the loop indexes them by `i + k` (`k`
a literal), and its bounds are literals, macros, parameters the call passes as
such, or sums and products of them (`n - 1`). The pair is reported when the
element offsets differ by `d != 0` and the loop runs more than `|d|`
iterations at that call.
"""

from __future__ import annotations

import re

from accls.analysis.findings import CARRIED_DEPENDENCE, Finding, finding
from accls.analysis.macro_fold import folded_poly
from accls.frontend import Call, Directive, Function, Loop, Ref, SourceFile
from accls.frontend.exprs import expression_poly

__all__ = ["POINTER_ARG", "call_alias_findings", "constant_value", "index_offset"]

POINTER_ARG = re.compile(  # `&a[c]`, `a` or `a + c`
    r"^\s*(?:&\s*([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]|([A-Za-z_]\w*)(?:\s*\+\s*(\d+))?)\s*$"
)
_INDEX = r"^\s*{var}\s*(?:([+-])\s*(\d+))?\s*$"


def constant_value(text: str, source: SourceFile) -> int | None:
    """The integer a literal or a macro naming one stands for, else None."""
    text = dict(source.macros).get(text.strip(), text).strip()
    return int(text) if text.isdigit() else None


def _bound(text: str, fn: Function, call: Call, source: SourceFile) -> int | None:
    """A loop bound's value at the call: a literal, a macro, or a passed literal."""
    direct = constant_value(text, source)
    if direct is not None:
        return direct
    # `n - 1`, `2 * n`: the parameters the call passes as constants, and macros.
    values = {
        name: value
        for name, body in source.macros
        if (value := constant_value(body, source)) is not None
    }
    for index, param in enumerate(fn.params):
        if index < len(call.args) and not _set(fn, param.name):
            value = constant_value(call.args[index], source)
            if value is not None:
                values[param.name] = value
    poly = folded_poly(text, values, expression_poly(text))
    if poly is None or any(mono for mono, _ in poly.terms):
        return None
    return sum(coeff for _, coeff in poly.terms)


def _set(fn: Function, name: str) -> bool:
    return any(r.name == name and r.is_write and not r.subscripts for r in fn.refs)


def index_offset(ref: Ref, var: str) -> int | None:
    """C for a one-subscript access `x[var + c]` (or `var - c`, `var`), else None."""
    if len(ref.subscripts) != 1:
        return None
    m = re.match(_INDEX.format(var=re.escape(var)), ref.subscripts[0].text)
    if m is None:
        return None
    k = int(m.group(2) or 0)
    return -k if m.group(1) == "-" else k


def _binding(arg: str, caller: Function, source: SourceFile) -> tuple[str, int] | None:
    """(array, offset) an argument points to: `a`, `a + c` or `&a[c]` of an array."""
    m = POINTER_ARG.match(arg)
    if m is None:
        return None
    array = m.group(1) or m.group(3)
    var = caller.lookup(array)
    if var is None and not caller.declarations(array):
        var = next((g for g in source.globals if g.name == array), None)
    # an array, or a plain pointer: one call evaluates both arguments from its
    # one value, so `f(u, u + 1)` binds them one element apart wherever u points
    pointer = var is not None and var.pointers == 1 and not var.dims and not m.group(1)
    if var is None or not (pointer or (var.dims and not var.pointers)):
        return None
    return array, int(m.group(2) or m.group(4) or 0)


def _calls(name: str, source: SourceFile) -> list[tuple[Function, Call]]:
    return [(f, c) for f in source.functions for c in f.call_sites if c.name == name]


def call_alias_findings(
    loop: Loop, directive: Directive, source: SourceFile, skip: set[str]
) -> list[Finding]:
    """ACC101 for a write and another access through parameters a call overlaps."""
    fn = source.function(loop.function) if loop.function else None
    if fn is None or not loop.var or loop.step != 1:
        return []
    calls = _calls(fn.name, source)
    if not calls:
        return []  # no call of the file binds the parameters
    used = {r.name for r in loop.refs if r.subscripts}
    params = {
        p.name: i
        for i, p in enumerate(fn.params)
        if p.name in used and p.pointers == 1 and not p.dims
    }
    # Only parameters a call binds into one array with another are worth the
    # scan for writes: the common call on distinct arrays costs nothing more.
    shared: set[str] = set()
    for caller, call in calls:
        arrays: dict[str, list[str]] = {}
        for n, i in params.items():
            got = _binding(call.args[i], caller, source) if i < len(call.args) else None
            if got is not None:
                arrays.setdefault(got[0], []).append(n)
        shared |= {n for names in arrays.values() if len(names) > 1 for n in names}
    params = {n: i for n, i in params.items() if n in shared and not _set(fn, n)}
    refs = [
        (r, k)
        for r in loop.refs
        if r.name in params and r.name not in skip
        if (k := index_offset(r, loop.var)) is not None
    ]
    if not any(r.is_write for r, _ in refs):
        return []
    for caller, call in calls:
        lo = _bound(loop.lower_text, fn, call, source)
        hi = _bound(loop.upper_text, fn, call, source)
        if lo is None or hi is None:
            continue
        bound = {
            n: got
            for n, i in params.items()
            if i < len(call.args)
            and (got := _binding(call.args[i], caller, source)) is not None
        }
        for a, ka in refs:
            for b, kb in refs:
                if not a.is_write or a.name == b.name:
                    continue
                if a.name not in bound or b.name not in bound:
                    continue
                (array, at), (other, bt) = bound[a.name], bound[b.name]
                d = (at + ka) - (bt + kb)
                if array != other or d == 0 or hi - lo <= abs(d):
                    continue
                return [_made(loop, directive, call, (a, b), array, abs(d))]
    return []


def _made(
    loop: Loop,
    directive: Directive,
    call: Call,
    pair: tuple[Ref, Ref],
    array: str,
    d: int,
) -> Finding:
    a, b = pair
    shown = f"{call.name}({', '.join(call.args)})"
    return finding(
        CARRIED_DEPENDENCE,
        a.span,
        directive=directive.name,
        line=loop.line,
        dep=f"`{a.render()}` (line {a.span.line}) and `{b.render()}` (line "
        f"{b.span.line}) point into `{array}` {d} element(s) apart at the call "
        f"`{shown}` (line {call.span.line}), so iterations that far apart touch "
        "one element",
        source_line=a.span.line,
        sink_line=b.span.line,
    )
