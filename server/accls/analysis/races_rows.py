"""Rows that overrun: `a[i][j]` with `j` reaching the row length runs into row i + 1.

The bounds may be literals, `#define` values, locals set once, or parameters every
call of the function gives one such value (`fill(grid, N, M)` for `j <= m`).
"""

from __future__ import annotations

import re

from accls.analysis.analyze import FileAnalysis
from accls.analysis.extents import escape_how, escape_reach
from accls.analysis.findings import OUT_OF_EXTENT, Finding, Severity, finding
from accls.analysis.races_index import literal_value, loop_range
from accls.frontend import Function, Loop, Ref, SourceFile

__all__ = ["escape_findings", "row_overruns"]


def _param_value(name: str, fn: Function, source: SourceFile) -> int | None:
    """The one literal value every call of `fn` passes for its parameter `name`."""
    names = [p.name for p in fn.params]
    if name not in names or any(r.name == name and r.is_write for r in fn.refs):
        return None
    k = names.index(name)
    values = {
        literal_value(call.args[k], source) if k < len(call.args) else None
        for other in source.functions
        for call in other.call_sites
        if call.name == fn.name
    }
    if len(values) != 1 or None in values:
        return None
    return values.pop()


def _bound(text: str, loop: Loop, fn: Function, source: SourceFile) -> int | None:
    found = literal_value(text, source)
    return found if found is not None else _param_value(text.strip(), fn, source)


def _last_index(inner: Loop, fn: Function, source: SourceFile) -> int | None:
    """The largest value of an inner unit-step loop's variable."""
    known = loop_range(inner, source)
    if known is not None:
        return known.stop - 1 if len(known) else None
    high = _bound(inner.upper_text, inner, fn, source)
    low = _bound(inner.lower_text, inner, fn, source)
    if inner.step != 1 or high is None or low is None:
        return None
    top = {"<": high - 1, "<=": high}.get(inner.cond_op or "")
    return top if top is not None and top >= low else None


def _row_length(name: str, fn: Function, source: SourceFile) -> int | None:
    var = next(
        (v for v in (*fn.params, *fn.locals, *source.globals) if v.name == name), None
    )
    if var is None or len(var.dims) < 2 or var.dims[-1] is None:
        return None
    return literal_value(var.dims[-1], source)


_LIMIT = re.compile(r"^(\w+)(?:\+(\d+))?(<=|<)(.+)$")
_FLIPPED = re.compile(r"^(.+?)(>=|>)(\w+)(?:\+(\d+))?$")


_OFFSET = re.compile(r"^(\w+)([+-]\d+)?$")


def _offset_value(text: str, source: SourceFile) -> int | None:
    """`N`, `N - 1`, `32 + 2`: a literal or macro and a literal offset."""
    match = _OFFSET.match(text)
    base = literal_value(match.group(1), source) if match is not None else None
    if match is None or base is None:
        return None
    return base + int(match.group(2) or 0)


def _guarded_top(
    ref: Ref, loop: Loop, var: str, top: int, source: SourceFile
) -> int | None:
    """The largest `var` the `if` conditions around `ref` let through.

    Every enclosing branch must be an `if` arm whose condition is a conjunction
    of `var + c < L` or `var + c <= L` tests (L a literal or macro); None when
    one is not, as a condition the model does not read may prevent the write.
    """
    pos = ref.span.start_byte
    arms = [
        b
        for b in source.branches
        if b.kind != "loop"
        and b.span.start_byte <= pos < b.span.end_byte
        and loop.span.start_byte <= b.span.start_byte < loop.span.end_byte
    ]
    if not arms or any(b.kind != "if" for b in arms):
        return None  # an `else`, `?:` or `&&` operand: not read
    for arm in arms:
        for part in "".join(arm.condition.split()).strip("()").split("&&"):
            part = part.strip("()")
            match = _LIMIT.match(part)
            flipped = _FLIPPED.match(part) if match is None else None
            if match is not None:
                name, shift, op, bound = match.groups()
            elif flipped is not None:
                bound, op, name, shift = flipped.groups()
                op = {">": "<", ">=": "<="}[op]
            else:
                return None
            value = _offset_value(bound, source)
            if name != var or value is None:
                return None
            top = min(top, value - int(shift or 0) - (op == "<"))
    return top


def row_overruns(loop: Loop, source: SourceFile) -> list[tuple[Ref, str]]:
    """(reference, how) for writes `a[i][j + c]` whose last subscript passes the row.

    `i` must be the parallel loop's variable, so each iteration owns row `i` and
    the element past its end is the first of the row another iteration owns.
    """
    fn = source.function(loop.function) if loop.function else None
    if fn is None or loop.var is None:
        return []
    inner = {x.var: x for x in loop.walk()[1:] if x.var}
    out: list[tuple[Ref, str]] = []
    for ref in loop.refs:
        subs = ["".join(s.text.split()) for s in ref.subscripts]
        if not ref.is_write or len(subs) != 2 or subs[0] != loop.var:
            continue
        if ref.fortran:
            continue  # column-major, from 1: `c(i, j)` is not C's `c[i][j]`
        var, _, shift = subs[1].partition("+")
        if var not in inner or (shift and not shift.isdigit()):
            continue
        top = _last_index(inner[var], fn, source)
        length = _row_length(ref.name, fn, source)
        if top is not None and ref.guarded:
            top = _guarded_top(ref, loop, var, top, source)
        if top is None or length is None:
            continue
        reach = top + int(shift or 0)
        if reach >= length:
            how = f"subscript `{subs[1]}` reaches {reach}; a row has {length} elements"
            out.append((ref, how))
    return out


_ROW = "into a neighbouring row that another iteration may write"


def escape_findings(
    analysis: FileAnalysis,
    loops: tuple[Loop, ...],
    protected: set[str],
    where: dict[str, object],
) -> list[Finding]:
    """Accesses that leave their row, under the pragma's loops."""
    out: list[Finding] = []
    seen: set[str] = set()
    for inner in loops:
        for escape in analysis.of(inner).escapes:
            ref = escape.ref
            if ref.name in seen or ref.name in protected:
                continue
            seen.add(ref.name)
            level = None if escape.certain else Severity.WARNING
            how = escape_how(escape)
            text = ref.render()
            out.append(
                finding(
                    OUT_OF_EXTENT,
                    ref.span,
                    level,
                    ref=text,
                    use=ref.span.line,
                    how=how,
                    reach=escape_reach(escape),
                    **where,
                )
            )
    for ref, how in row_overruns(loops[0], analysis.source):
        if ref.name not in seen and ref.name not in protected:
            seen.add(ref.name)
            text = ref.render()
            out.append(
                finding(
                    OUT_OF_EXTENT,
                    ref.span,
                    ref=text,
                    use=ref.span.line,
                    how=how,
                    reach=_ROW,
                    **where,
                )
            )
    return out
