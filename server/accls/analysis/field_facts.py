"""The facts of field points-to (`FieldFact`) and the names of the objects in them."""

from __future__ import annotations

from dataclasses import dataclass

from accls.frontend import Function, Var

__all__ = ["ALL", "FieldFact", "object_of_var"]

ALL = "*"  # the `field` of a fact about every pointer field of the struct


@dataclass(frozen=True, slots=True)
class FieldFact:
    """One fact of one file.

    `kind`: "object" (`target` is an object the field may point to), "copy"
    (`target` is "key.field" whose set flows in), "call" (`target` is a callee
    that may be an allocator wrapper), "unknown" (`field` ALL: every field of
    the struct), "unknown_name" (every struct's field called `field`),
    "escape" (a pointer to `key` passed to the callee `target` as argument
    `field`: unknown unless "accepts" says the callee's parameter there points
    to `key`, so that its stores are facts of its own file),
    "wrapper" (`target` is a function whose every return is fresh memory).
    """

    kind: str
    key: str
    field: str
    target: str
    place: str
    shown: str = ""  # how the message names it: "comdMalloc()"


def object_of_var(var: Var, fn: Function | None, file: str) -> str:
    """The name of the object a variable's storage (or fresh block) is."""
    if var.scope == "global":
        return f"global {var.name}"
    owner = fn.name if fn is not None else ""
    kind = "fresh" if var.fresh else "local"
    return f"{kind} {file}:{owner}:{var.name}"
