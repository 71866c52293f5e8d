"""Which variable's storage a callee's write changes, for its shared-state races."""

from __future__ import annotations

from accls.frontend import Ref

__all__ = ["state_name", "threadprivate_fix"]


def state_name(ref: Ref) -> str | None:
    """The variable a plain or member write changes: `st` for `st.hits`.

    None for an element (`a[k]`, `s.v[k]`) or for anything reached through a
    pointer (`*p`, `p->n`), whose object the name alone does not fix.
    """
    if ref.subscripts or ref.deref:
        return None
    if not ref.member:
        return ref.name
    if "->" in ref.name:
        return None
    return ref.name.split(".")[0]


def threadprivate_fix(write: Ref, callee: str) -> str:
    """The fix for a callee's write of shared state: the variable, not its member."""
    name = state_name(write) or write.name
    return f"make `{name}` `threadprivate`, or call `{callee}` in a `critical`"
