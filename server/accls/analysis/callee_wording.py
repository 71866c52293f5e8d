"""How an ACC124 finding names the shared state a callee writes, and its fix."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["callee_fix", "callee_what"]


def _member(name: str) -> bool:
    return "->" in name or "." in name


def callee_what(name: str, args: Sequence[str], hidden: bool) -> str:
    """The kind of state `name` is: library, caller's variable, member, global."""
    if hidden:
        return "hidden state of the C library"
    if any("".join(a.split()) in (f"&{name}", name) for a in args):
        return "the caller's variable, written through a pointer argument"
    if _member(name):
        return "a member of an object the caller shares, written through a pointer"
    return "a `static` local or a global"


def callee_fix(name: str, callee: str, fix: str) -> str:
    """`fix` for a variable; for a shared object's member, order or exclude."""
    if not _member(name):
        return fix
    return (
        f"order the call to `{callee}` and the other access of `{name}` with a "
        "`barrier`, or guard both with one `critical`"
    )
