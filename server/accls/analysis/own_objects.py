"""A constructor or method working on an object the iteration owns.

`P p(a[i]);`, `P(a[i])`, `new P(a[i])`: the front end passes the new object as
the constructor's `this` (its name, or NEW_OBJECT for a temporary), like the
object of `p.set(x)`. Writes through `this` then reach that object, which is
the iteration's own when it is new, or a class object declared in the loop body
(not static, not a reference). That holds only while the callee touches through
`this` nothing but the object's own members: not a static member (one object of
the class), not through a pointer or reference member (memory of any owner),
and hands `this` on only to calls that keep to the same rule.
"""

from __future__ import annotations

import re

from accls.analysis.overloads import called_definition, definitions
from accls.analysis.summaries import base_name
from accls.frontend import NEW_OBJECT, Call, Function, Loop, SourceFile

__all__ = ["own_object"]

_THIS = re.compile(r"\bthis\b")
_MEMBER = re.compile(r"this->([A-Za-z_]\w*)")
_DEPTH = 8  # calls followed through `this` before giving up


def own_object(call: Call, index: int, loop: Loop, source: SourceFile) -> bool:
    """Whether argument `index` of `call` is `this`, an object the iteration owns.

    True only when the callee, and every call it hands `this` on to, reads and
    writes through `this` only the object's own (non-static, non-reference)
    members; a write elsewhere stays visible through the other arguments and
    the summary's globals.
    """
    return (
        _candidate(call, index, loop, source)
        and beyond_why(call, index, loop, source) is None
    )


def beyond_why(call: Call, index: int, loop: Loop, source: SourceFile) -> str | None:
    """Why a call on the iteration's own object reaches beyond it; None if not.

    None too when argument `index` is no such object (see `own_object`).
    """
    if not _candidate(call, index, loop, source):
        return None
    what = "the new object" if call.args[0] == NEW_OBJECT else f"`{call.args[0]}`"
    why = _reaches(call.name, len(call.args), source, _DEPTH)
    if why is None:
        return None
    return (
        f"which works on {what}, an object of the iteration, but through it "
        f"{why}, memory the iterations may share"
    )


def _candidate(call: Call, index: int, loop: Loop, source: SourceFile) -> bool:
    if index != 0 or not call.args:
        return False
    arg = call.args[0]
    return arg == NEW_OBJECT or _body_object(arg, loop, source)


def _body_object(name: str, loop: Loop, source: SourceFile) -> bool:
    """A class object (no pointer, reference or array) declared in the loop body."""
    found = [v for v in loop.locals if v.name == name]
    if len(found) != 1:
        return False
    var = found[0]
    return (
        not var.pointers
        and not var.dims
        and not var.static
        and source.types.fields_of(var.type) is not None
    )


def _reaches(name: str, count: int, source: SourceFile, depth: int) -> str | None:
    """What a definition `name(..)` may run reaches beyond `this`'s own members."""
    chosen = called_definition(name, count, source)
    found = [chosen] if chosen is not None else list(definitions(name, source))
    if not found:
        return f"`{name}()`, defined in no way this file shows, may reach anything"
    if depth <= 0:
        return f"`{name}()` hands it on through too many calls to follow"
    for fn in found:
        why = _one_reaches(fn, source, depth)
        if why is not None:
            return why
    return None


def _one_reaches(fn: Function, source: SourceFile, depth: int) -> str | None:
    if not fn.params or fn.params[0].name != "this":
        return f"`{fn.name}()` takes no object"
    cls = fn.params[0].type
    fields = source.types.fields_of(cls) or {}
    layout = source.types.fields_of(f"struct {cls}") or {}
    for ref in fn.refs:
        if base_name(ref.name) != "this":
            continue
        where = f"`{fn.name}()` reaches `{ref.render()}` (line {ref.span.line})"
        match = _MEMBER.fullmatch(ref.name)
        if match is None or ref.deref or ref.escapes:
            return where  # `this` itself, a chain of members, or an address
        field = fields.get(match.group(1))
        shape = layout.get(match.group(1))
        if field is None or shape is None:
            return where + ", a member the file does not declare"
        if field.static:
            return where + ", a static member: one object of the whole class"
        if ref.subscripts:
            # Only an array member lies in the object; `d[k]` of `double *d` not.
            if shape.pointers or len(shape.dims) < len(ref.subscripts):
                return where + ", through a pointer member"
        elif field.pointers > shape.pointers and not shape.dims:
            return where + ", a reference member: another object"
    for call in fn.call_sites:
        for position, text in enumerate(call.args):
            if not _THIS.search(text):
                continue
            if position != 0 or text != "this":
                return f"`{fn.name}()` hands `{text}` to `{call.name}()`"
            why = _reaches(call.name, len(call.args), source, depth - 1)
            if why is not None:
                return why
    return None
