"""Which variable's storage a callee's write changes, for its shared-state races."""

from __future__ import annotations

import re

from accls.frontend import Function, Ref, SourceFile

__all__ = ["other_access", "state_name", "threadprivate_fix", "threadprivate_names"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_THREADPRIVATE = re.compile(r"#\s*pragma\s+omp\s+threadprivate\s*\(([^)]*)\)")


def state_name(ref: Ref, fn: Function | None = None) -> str | None:
    """The variable a plain or member write changes: `st` for `st.hits`.

    None for an element (`a[k]`, `s.v[k]`) or for anything reached through a
    pointer (`*p`, `p->n`), whose object the name alone does not fix; but a
    write of a fixed element of `fn`'s own `static` array (`rate[0] = ...`)
    changes that array on every call.
    """
    if ref.subscripts and fn is not None and _static_element(ref, fn):
        return ref.name
    if ref.subscripts or ref.deref:
        return None
    if not ref.member:
        return ref.name
    if "->" in ref.name:
        return None
    return ref.name.split(".")[0]


def _static_element(ref: Ref, fn: Function) -> bool:
    """True for a write of `a[2]` with `a` a `static` array declared in `fn`."""
    var = fn.lookup(ref.name)
    return (
        ref.is_write
        and not (ref.deref or ref.member)
        and var is not None
        and var.static
        and bool(var.dims)
        and not var.pointers
        and all(s.poly is not None and s.poly.is_constant for s in ref.subscripts)
    )


def threadprivate_fix(write: Ref, callee: str) -> str:
    """The fix for a callee's write of shared state: the variable, not its member."""
    name = state_name(write) or write.name
    return f"make `{name}` `threadprivate`, or call `{callee}` in a `critical`"


def threadprivate_names(source: SourceFile) -> frozenset[str]:
    """Names a `threadprivate` directive of the file names."""
    return frozenset(
        n for args in _THREADPRIVATE.findall(source.text) for n in _NAME.findall(args)
    )


def other_access(
    callee: Function, write: Ref, refs: tuple[Ref, ...] = ()
) -> dict[str, object]:
    """`also`/`other`: another line of the callee (of `refs` first) using the name."""
    for ref in refs or callee.refs:
        if ref.name == write.name and ref.span.line != write.span.line:
            word = "written" if ref.is_write else "read"
            return {
                "also": f" and {word} at line {ref.span.line}",
                "other": ref.span.line,
            }
    return {"also": ""}
