"""ACC103 for a shared scalar the loop writes: its lines, its doubt and its wording."""

from __future__ import annotations

from accls.analysis.carried_scalars import write_span
from accls.analysis.findings import SHARED_SCALAR_WRITE, Finding, Severity, finding
from accls.analysis.model import ScalarFact
from accls.frontend import Directive, Loop, Ref, SourceFile

__all__ = ["callee_write", "doubt_level", "read_line", "shared_write", "through_callee"]


def read_line(loop: Loop, name: str, write: int) -> dict[str, int]:
    """`read`: a line of the loop that reads `name`, another than the write's if any."""
    lines = [r.span.line for r in loop.refs if r.name == name and not r.is_write]
    other = [line for line in lines if line != write]
    return {"read": (other or lines)[0]} if lines else {}


def callee_write(loop: Loop, name: str, source: SourceFile) -> dict[str, int]:
    """`callee_write`: the line where a function given `&name` writes through it."""
    for call in loop.calls:
        callee = source.function(call.name)
        if callee is None:
            continue
        for arg, param in zip(call.args, callee.params, strict=False):
            if "".join(arg.split()) != f"&{name}":
                continue
            for ref in callee.refs:
                if ref.is_write and _writes_pointee(ref, param.name, source):
                    return {"callee_write": ref.span.line}
    return {}


def _writes_pointee(ref: Ref, param: str, source: SourceFile) -> bool:
    """True when `ref` writes the object the pointer `param` points to.

    `*p`, `p[k]`, a member `p->f`, or an element of an array member `p->v[k]`;
    not `p->x[k]` through a pointer member, which writes another object.
    """
    if ref.name == param:
        return ref.deref or bool(ref.subscripts)
    base, arrow, rest = ref.name.partition("->")
    if base != param or not arrow or not ref.member:
        return False
    if not ref.subscripts:
        return True
    field = rest.split(".")[0].split("->")[0]
    shapes = [
        v for _, fields in source.types.structs for v in fields if v.name == field
    ]
    return not shapes or any(v.dims and not v.pointers for v in shapes)


def through_callee(loop: Loop, name: str, source: SourceFile) -> str:
    """Message text naming the callee line `callee_write` found, if any."""
    line = callee_write(loop, name, source).get("callee_write")
    if line:
        return f" (through its address, written at line {line})"
    if doubt_level(loop, name, source) is not None:
        return " (only its address is handed to a call, which may write through it)"
    return ""


def doubt_level(loop: Loop, name: str, source: SourceFile) -> Severity | None:
    """WARNING when the loop writes `name` only by handing out its address.

    `f(&s)` counts as a write, as `f` may store through it; unless a callee is
    seen writing through that pointer, no write of `s` is proved, so a shared
    `s` is a doubt, not a race.
    """
    writes = [r for r in loop.refs if r.name == name and r.is_write]
    if not writes or not all(r.escapes and not r.into for r in writes):
        return None
    return None if callee_write(loop, name, source) else Severity.WARNING


def shared_write(
    fact: ScalarFact, loop: Loop, directive: Directive, source: SourceFile, cls: str
) -> Finding:
    """ACC103 for a shared scalar every iteration writes; `cls` the clause to add."""
    span, name = write_span(loop, fact.name), fact.name
    return finding(
        SHARED_SCALAR_WRITE,
        span,
        doubt_level(loop, name, source),
        var=name,
        write=span.line,
        directive=directive.name,
        why=fact.why + through_callee(loop, name, source),
        fix=(
            f"drop `static` from `{name}`"
            if any(v.static and v.name == name for v in loop.locals)
            else f"add `{cls}({name})`"
        ),
        **read_line(loop, name, span.line),
        **callee_write(loop, name, source),
    )
