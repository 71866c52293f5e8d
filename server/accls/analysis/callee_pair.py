"""The other access that a callee's write of shared state races with.

ACC124 names a write of a `static` local or a global and, where it can, a second
access another thread makes of it. That access is, in order of preference:

- a read, in a function the loop's call reaches, through the pointer that the
  writer returns to its `static` buffer: `static double r[4]; ... return r;`
  hands every caller the one buffer, so `const double *rate = rates(y);` and
  `rate[0]` read what another thread's `r[0] = ...` writes (the read of the
  written element first);
- another line of the writer using the name;
- a write of the name by another function that the loop calls.
"""

from __future__ import annotations

import re

from accls.analysis.callee_chain import chain_functions
from accls.analysis.callee_state import other_access
from accls.frontend import Function, Loop, Ref, SourceFile

__all__ = ["paired_access", "returned_state_reads"]

_RETURN = re.compile(rb"\breturn\b\s*([^;]*);")


def paired_access(
    loop: Loop,
    source: SourceFile,
    name: str,
    writer: Function,
    write: Ref,
    writes: list[Ref],
) -> dict[str, object]:
    """`also`/`other` for the finding: the line racing with `write`, when known."""
    called = source.function(name)
    chain = chain_functions(called, source) if called is not None else None
    reads = returned_state_reads(chain or (), writer, write.name, source)
    if reads:
        same = [r for r in reads if _texts(r) == _texts(write)]
        read = (same or reads)[0]
        return {
            "also": f" and read at line {read.span.line} through the pointer "
            f"`{writer.name}` returns",
            "other": read.span.line,
        }
    also = other_access(writer, write, (*writes, *writer.refs))
    if also.get("other"):
        return also
    return _other_callee(loop, source, name, write.name) or also


def returned_state_reads(
    chain: tuple[Function, ...] | list[Function],
    holder: Function,
    var: str,
    source: SourceFile,
) -> list[Ref]:
    """Reads, in `chain`, of `holder`'s `static` `var` through the pointer returned.

    Only when every `return` of `holder` returns `var`, and a caller keeps the
    result in a local pointer that it sets once and reads by subscript.
    """
    if not _returns_only(holder, var, source):
        return []
    kept = re.compile(rb"\b([A-Za-z_]\w*)\s*=\s*" + re.escape(holder.name.encode()))
    out: list[Ref] = []
    for fn in chain:
        if fn is holder:
            continue
        text = source.data[fn.span.start_byte : fn.span.end_byte]
        for match in kept.finditer(text):
            pointer = match.group(1).decode()
            if not _local_pointer_set_once(fn, pointer):
                continue
            out.extend(
                r
                for r in fn.refs
                if r.name == pointer and not r.is_write and r.subscripts
            )
    return out


def _returns_only(holder: Function, var: str, source: SourceFile) -> bool:
    """True when `holder` keeps `var` as a `static` local and returns only it."""
    local = next((v for v in holder.locals if v.name == var), None)
    if local is None or not local.static:
        return False
    text = source.data[holder.span.start_byte : holder.span.end_byte]
    returned = [m.group(1).strip() for m in _RETURN.finditer(text)]
    return bool(returned) and all(r == var.encode() for r in returned)


def _local_pointer_set_once(fn: Function, name: str) -> bool:
    """True for a local pointer of `fn` (not `static`) that one statement sets."""
    local = next((v for v in fn.locals if v.name == name), None)
    if local is None or local.static or not local.pointers:
        return False
    if fn.declarations(name) != 1:
        return False
    sets = [
        r
        for r in fn.refs
        if r.name == name and r.is_write and not r.subscripts and not r.deref
    ]
    return len(sets) == 1 and not any(r.escapes for r in fn.refs if r.name == name)


def _texts(ref: Ref) -> tuple[str, ...]:
    return tuple(s.text.replace(" ", "") for s in ref.subscripts)


def _other_callee(
    loop: Loop, source: SourceFile, name: str, var: str
) -> dict[str, object] | None:
    """`also`/`other`: another function the loop calls that writes `var` too."""
    for call in loop.calls:
        other = source.function(call.name)
        if call.name == name or other is None:
            continue
        for ref in other.refs:
            if ref.name == var and ref.is_write and not other.lookup(var):
                return {
                    "also": f" and by `{call.name}` (line {ref.span.line})",
                    "other": ref.span.line,
                }
    return None
