"""Whether two array names of a loop may refer to overlapping memory."""

from __future__ import annotations

from accls.analysis.model import Obstacle
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import Function, Loop, Var

__all__ = ["alias_obstacles", "array_decl"]

_ANY_TYPE = frozenset({"char", "unsigned char", "signed char", "void"})
_PRIMITIVE = frozenset(
    [
        "char",
        "short",
        "int",
        "long",
        "float",
        "double",
        "unsigned",
        "signed",
        "_Bool",
        "bool",
        "size_t",
        "int8_t",
        "int16_t",
        "int32_t",
        "int64_t",
        "uint8_t",
        "uint16_t",
        "uint32_t",
        "uint64_t",
    ]
)


def array_decl(name: str, fn: Function | None, globals_: tuple[Var, ...]) -> Var | None:
    """The declaration of an array name, looking at the function then globals."""
    base = name.split("->")[0].split(".")[0]
    found = fn.lookup(base) if fn is not None else None
    if found is None:
        found = next((g for g in globals_ if g.name == base), None)
    return found


def _types_may_alias(a: Var, b: Var) -> bool:
    if a.type in _ANY_TYPE or b.type in _ANY_TYPE:
        return True
    primitive_a = set(a.type.split()) <= _PRIMITIVE
    primitive_b = set(b.type.split()) <= _PRIMITIVE
    if primitive_a and primitive_b:
        return a.type == b.type
    return True  # a typedef may name either type


def _is_pointer(var: Var) -> bool:
    return var.pointers > 0 and not var.dims


def _is_array_object(var: Var | None) -> bool:
    """True for a local array object: no pointer from outside can reach it."""
    return (
        var is not None
        and var.scope == "local"
        and not _is_pointer(var)
        and bool(var.dims)
    )


def _may_alias(a: Var, b: Var) -> bool:
    """Conservatively, whether `a` and `b` may address the same memory."""
    if not _types_may_alias(a, b):
        return False
    if a.restrict or b.restrict:
        return False
    if not _is_pointer(a) and not _is_pointer(b):
        return False  # two distinct array objects (array-syntax parameters included)
    if a.fresh or b.fresh:
        return False  # a fresh allocation overlaps nothing else
    pointer, other = (a, b) if _is_pointer(a) else (b, a)
    # A parameter cannot point into a local array of the function it is passed to.
    local_array = other.scope == "local" and not _is_pointer(other)
    return not (local_array and pointer.scope == "param")


def alias_obstacles(
    loop: Loop, fn: Function | None, globals_: tuple[Var, ...], unseen: str = ""
) -> tuple[Obstacle, ...]:
    """Pairs of arrays where one is written and the two may overlap.

    `unseen` says why some declarations may be missing (a header not found).
    """
    arrays: dict[str, bool] = {}
    first_line: dict[str, int] = {}
    for ref in loop.refs:
        if is_scalar_ref(ref):
            continue
        arrays[ref.name] = arrays.get(ref.name, False) or ref.is_write
        first_line.setdefault(ref.name, ref.span.line)
    out: list[Obstacle] = []
    names = sorted(arrays)
    for written in names:
        if not arrays[written]:
            continue
        wdecl = array_decl(written, fn, globals_)
        for other in names:
            if other == written or (arrays[other] and other < written):
                continue
            odecl = array_decl(other, fn, globals_)
            if wdecl is None or odecl is None:
                # A declaration we cannot see (a header, a struct member) may be a
                # pointer into the other array; only two visible arrays are safe.
                may = not (_is_array_object(wdecl) or _is_array_object(odecl))
            else:
                may = _may_alias(wdecl, odecl)
            if not may:
                continue
            hidden = [n for n, d in ((written, wdecl), (other, odecl)) if d is None]
            why = (
                f"the declaration of `{hidden[0]}` is not visible here{unseen}, so "
                "it may point into the other"
                if hidden
                else "they are pointers that may point to overlapping memory"
            )
            out.append(
                Obstacle(
                    code="alias",
                    line=first_line[written],
                    variable=written,
                    message=f"`{written}` (written at line {first_line[written]}) and "
                    f"`{other}` may overlap: {why}; declare them `restrict` or set "
                    "assume-no-alias if they never do",
                    assumption=True,
                )
            )
    return tuple(out)
