"""Loops that write a `volatile` object: every access is observable, so none is moved.

A `volatile` scalar written in a loop cannot be made `private`, `lastprivate` or a
`reduction`: the copies would hide the writes that some other code (a signal
handler, another thread, a device) watches, and the order of the writes is part of
what the program does. A write through a pointer to `volatile` memory (a device
register, a flag shared with a handler) is the same. Reads only of a volatile that
the loop does not write are fine; so is a non-`static` volatile declared inside the
body, an object of its own in every iteration.
"""

from __future__ import annotations

import re

from accls.analysis.model import Obstacle, ObstacleCode
from accls.frontend import Function, Loop, SourceFile, Var

__all__ = ["volatile_obstacles"]

_ROOT = re.compile(r"[A-Za-z_]\w*")
_FIELD = re.compile(r"(?:\.|->)\s*([A-Za-z_]\w*)")
_COMMENT_OR_STRING = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL
)


def _volatile_fields(source: SourceFile) -> frozenset[str]:
    """The names of the struct fields some struct of the file declares `volatile`."""
    return frozenset(
        field.name
        for _, fields in source.types.structs
        for field in fields
        if field.volatile
    )


def _field_writes(
    loop: Loop, source: SourceFile, fields: frozenset[str]
) -> list[tuple[str, int]]:
    """The volatile fields the loop's text stores into, increments or decrements.

    Read from the text, since `d[i].status = 1` is a write of the element `d[i]` in
    the references: `.status =`, `->status += ..`, `.status++` and `++ .. .status`.
    """
    if not fields:
        return []
    code = source.data[loop.span.start_byte : loop.span.end_byte].decode(
        "utf-8", errors="replace"
    )
    code = _COMMENT_OR_STRING.sub(" ", code)
    names = "|".join(sorted(re.escape(f) for f in fields))
    store = re.compile(
        rf"(?:\.|->)\s*({names})\b\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)"
        rf"|(?:\+\+|--)[^;=]*?(?:\.|->)\s*({names})\b"
    )
    return [
        (m.group(1) or m.group(2), loop.span.line + code.count("\n", 0, m.start()))
        for m in store.finditer(code)
    ]


def _declared_volatile(
    name: str, loop: Loop, fn: Function | None, source: SourceFile
) -> bool:
    """True when the object `name` names outside the body may be `volatile`."""
    types = source.types.volatiles

    def volatile(var: Var) -> bool:
        return var.volatile or var.type in types  # `vint x` of a volatile typedef

    inner = [v for v in loop.locals if v.name == name]
    if inner:
        # A non-`static` local of the body is an object of its own per iteration.
        return any(volatile(v) for v in inner) and any(v.static for v in inner)
    declared = (*fn.locals, *fn.params) if fn is not None else ()
    outer = [v for v in declared if v.name == name]
    if outer:
        return any(volatile(v) for v in outer)
    return any(volatile(g) for g in source.globals if g.name == name)


def volatile_obstacles(
    loop: Loop, fn: Function | None, source: SourceFile
) -> tuple[Obstacle, ...]:
    """One obstacle per volatile object the loop writes (its first write)."""
    fields = _volatile_fields(source)
    out: list[Obstacle] = []
    seen: set[str] = set()
    for ref in loop.refs:
        if not ref.is_write:
            continue
        root = _ROOT.match(ref.name)
        if root is None:
            continue
        name = root.group(0)
        member = next(
            (f for f in _FIELD.findall(ref.name[root.end() :]) if f in fields), None
        )
        if member is None and not _declared_volatile(name, loop, fn, source):
            continue
        what = f"{name}.{member}" if member is not None else name
        if what in seen:
            continue
        seen.add(what)
        out.append(_obstacle(f"`{what}`", name, ref.span.line))
    for field, line in _field_writes(loop, source, fields):
        if not any(name.endswith(f".{field}") for name in seen):
            seen.add(f".{field}")
            out.append(_obstacle(f"field `{field}`", field, line))
    return tuple(out)


def _obstacle(what: str, name: str, line: int) -> Obstacle:
    return Obstacle(
        code=ObstacleCode.VOLATILE,
        line=line,
        variable=name,
        message=f"writes volatile {what} (line {line}): every access is "
        "observable; accls does not privatize or reduce it",
    )
