"""Arrays whose conflicts the user's `atomic`/`critical` constructs settle.

An array touched only inside them does not race, and its updates need no
order when they are updates of one kind (`x += e`, `x <<= e`): the loop's
carried dependences on it are dropped. A guarded `x = e(x)` that is not such an
update (`a[k] = b[i] - a[k]`, `a[k] = b[i] << a[k]`), or updates of two
operators (`+=` and `*=`), still leave a value that depends on the order the
iterations run in, so the array stays dependent.
"""

from __future__ import annotations

from accls.analysis.integer_kinds import declaration, signedness
from accls.analysis.scalars import is_scalar_ref
from accls.analysis.update_order import order_free
from accls.frontend import Function, Loop, Ref, SourceFile

__all__ = ["guarded_arrays"]


def guarded_arrays(
    loop: Loop, dialect: str, fn: Function | None, source: SourceFile
) -> set[str]:
    """Arrays touched only inside the dialect's `atomic`/`critical`, in any order."""
    groups: dict[str, list[Ref]] = {}
    safe: dict[str, bool] = {}
    for ref in loop.refs:
        if not is_scalar_ref(ref):
            groups.setdefault(ref.name, []).append(ref)
            guarded = bool(dialect) and ref.atomic == dialect
            safe[ref.name] = safe.get(ref.name, True) and guarded
    return {
        name
        for name, refs in groups.items()
        if safe[name] and order_free(refs, _kind(name, fn, source))
    }


def _kind(name: str, fn: Function | None, source: SourceFile) -> str:
    """The integer kind of the array's element type; "" when not known."""
    var = declaration(name, fn, source)
    return signedness(var, source.types) if var is not None else ""
