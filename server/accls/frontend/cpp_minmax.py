"""C++ calls that keep a running extreme: `std::max(m, x)` and its spellings.

`m = std::max(m, a[i])` is `reduction(max:m)` only when the call is the
standard one: `std::max`/`std::min` (with or without template arguments, as
`std::max<double>`), `fmax`/`fmin` of <cmath>, or a bare `max`/`min` that
`using namespace std` or `using std::max` brings in. A function of that name
the file defines, a method of the class, another namespace's `max` or a macro
of unknown meaning may compute anything. The variable must be an arithmetic
scalar: OpenMP's `max`/`min` reduce nothing else. Two arguments only (the
callers check it): a comparator or an initializer list is another function.
"""

from __future__ import annotations

from accls.frontend.cpp_types import CxxScope, CxxType, TypeKind
from accls.frontend.model import RedOp

__all__ = ["standard_minmax"]

_STD = {
    "max": RedOp.MAX,
    "min": RedOp.MIN,
    **{f"fmax{s}": RedOp.MAX for s in ("", "f", "l")},
    **{f"fmin{s}": RedOp.MIN for s in ("", "f", "l")},
}


def standard_minmax(
    text: str, scope: CxxScope, own: bool, target: CxxType | None
) -> RedOp | None:
    """The extreme the call named `text` keeps in `target`, if standard.

    `own` says the name is a method of the calling class (or of its bases).
    """
    if target is None or target.kind is not TypeKind.BUILTIN or target.pointer:
        return None
    text = "".join(text.split())
    if "<" in text:
        text, _, args = text.partition("<")
        if not args.endswith(">"):
            return None
    space, _, plain = text.removeprefix("::").rpartition("::")
    op = _STD.get(plain)
    if op is None or own or (not space and plain in scope.returns):
        return None
    if space:
        return op if space == "std" else None
    if plain.startswith("fm"):  # <cmath> and <math.h> declare them globally
        return op
    return op if scope.using_std or plain in scope.using_names else None
