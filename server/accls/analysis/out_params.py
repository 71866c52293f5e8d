"""Out-parameters: `f(.., &fx)` where `f` writes `*fx` before it could read it.

`computeTotalForce(p[i], .., &fx, &fy)` looks like a read-modify-write of the
loop's scalars `fx` and `fy`: their addresses escape into the call. When the
callee, on every path, stores `*fx` before any read of it (a store at the top
level of its body, no `return` before it, no read of `*fx` on an earlier line,
the pointer never passed on, copied or indexed past `[0]`), the call defines
`fx` and uses nothing of its old value: for the loop, it is a plain write of
`fx`, so `fx` is private to the iteration like any scalar assigned first.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.frontend import AccessKind, Call, Function, Loop, Ref, SourceFile

__all__ = ["defines", "must_write", "out_param_writes"]

_ADDRESS = re.compile(r"&\s*([A-Za-z_]\w*)")


def _same_object(ref: Ref, name: str) -> bool:
    if ref.name != name:
        return False
    return not ref.subscripts or (
        len(ref.subscripts) == 1 and ref.subscripts[0].text.strip() == "0"
    )


def must_write(fn: Function, index: int) -> bool:
    """True when `fn` stores `*p` (its parameter `index`) before any read of it."""
    if index >= len(fn.params):
        return False
    param = fn.params[index]
    if param.pointers != 1 or param.dims:
        return False
    name = param.name
    own = [r for r in fn.refs if re.split(r"->|\.|\[", r.name)[0].strip() == name]
    if any(not _same_object(r, name) or not (r.deref or r.subscripts) for r in own):
        return False  # `p` itself used, copied, moved or indexed: not one slot
    if any(name in v.sources for v in fn.locals):
        return False
    word = re.compile(rf"\b{re.escape(name)}\b")
    if any(word.search(arg) for call in fn.call_sites for arg in call.args):
        return False  # passed on: the other function may read it first
    first = next(
        (
            r
            for r in own
            if r.kind is AccessKind.WRITE and not r.context and not r.guarded
        ),
        None,
    )
    if first is None:
        return False
    line = first.span.line
    if any(e.span.start_byte < first.span.start_byte for e in fn.exits):
        return False
    return not any(r.is_read and r.span.line <= line for r in own)


def _callee(call: Call, source: SourceFile) -> Function | None:
    fn = source.function(call.name)
    if fn is None or sum(1 for f in source.functions if f.name == call.name) != 1:
        return None
    return fn


def _defined(loop: Loop, source: SourceFile) -> dict[tuple[int, str], Call]:
    """(call start, name) of each `&name` argument its callee must write."""
    found: dict[tuple[int, str], Call] = {}
    for call in loop.calls:
        callee = _callee(call, source)
        if callee is None:
            continue
        for index, arg in enumerate(call.args):
            match = _ADDRESS.fullmatch(arg.strip())
            if match is None:
                continue
            word = re.compile(rf"\b{match.group(1)}\b")
            if sum(1 for other in call.args if word.search(other)) != 1:
                continue  # `f(&x, &x)` or `f(&x, x)`: another way in to `x`
            if must_write(callee, index):
                found[(call.span.start_byte, match.group(1))] = call
    return found


def defines(call: Call, index: int, loop: Loop, source: SourceFile) -> bool:
    """True when argument `index` of `call`, `&x` of a local scalar, is stored first."""
    arg = call.args[index].strip() if index < len(call.args) else ""
    match = _ADDRESS.fullmatch(arg)
    if match is None:
        return False
    fn = source.function(loop.function)
    var = fn.lookup(match.group(1)) if fn is not None else None
    if var is None or var.scope != "local" or var.static or var.is_array:
        return False
    return (call.span.start_byte, match.group(1)) in _defined(loop, source)


def _in_call(ref: Ref, calls: dict[tuple[int, str], Call]) -> bool:
    for (start, name), call in calls.items():
        if (
            name == ref.name
            and start <= ref.span.start_byte
            and ref.span.end_byte <= call.span.end_byte
        ):
            return True
    return False


def _rewrite(loop: Loop, source: SourceFile) -> Loop:
    children = tuple(_rewrite(child, source) for child in loop.children)
    defined = _defined(loop, source)
    refs = loop.refs
    if defined:
        refs = tuple(
            replace(r, kind=AccessKind.WRITE, escapes=False)
            if r.escapes
            and r.kind is AccessKind.UPDATE
            and not r.subscripts
            and not r.deref
            and _in_call(r, defined)
            else r
            for r in loop.refs
        )
    if refs == loop.refs and children == loop.children:
        return loop
    return replace(loop, refs=refs, children=children)


def out_param_writes(nest: Loop, source: SourceFile) -> Loop:
    """The nest with each `&x` its callee must write made a write of `x`."""
    return _rewrite(nest, source)
