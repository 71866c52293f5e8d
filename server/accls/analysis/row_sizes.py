"""Whether a library call with a size writes within one row: `memcpy(a[i], b, n)`.

`memset(a[i], 0, sizeof a[i])` or `memcpy(a[i], b[i], M * sizeof(double))`
with `double a[][M]` write row `i` only, but `memcpy(a[i], src, 2 * M * 8)`
writes the next row too: the library copies bytes, whatever the pointer's
row. A row argument of a library function is a row write only when its size
is the row's: `sizeof` the row, or the row's extent times `sizeof` an element
(the element's type, `row[0]` or `*row`). Functions that write an unbounded
length (`strcpy`) or whose size is not read here keep the call an obstacle.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from accls.analysis.callee_rows import extent_value
from accls.frontend import Call, Function, Ref, SourceFile, Var

__all__ = ["element_count", "size_why", "unwrapped", "within_row"]

# Callee: (position of the byte count, position of the element count or None).
_SIZED = {
    "memcpy": (2, None),
    "memmove": (2, None),
    "memset": (2, None),
    "strncpy": (2, None),
    "snprintf": (1, None),  # at most `n` bytes, the terminating zero included
    "qsort": (2, 1),
}
_SIZEOF = re.compile(r"^sizeof\s*(.*)$", re.DOTALL)


def _folded(text: str) -> str:
    return "".join(text.split())


def _wrapped(text: str) -> bool:
    """Whether the first `(` of `text` closes at its last character."""
    depth = 0
    for pos, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return pos == len(text) - 1 and char == ")"
    return False


def _unwrapped(text: str) -> str:
    """`text` without the parentheses around all of it: `((a))` is `a`.

    `(m + 1) * sizeof(double)` keeps its own: they close before the end.
    """
    while text.startswith("(") and _wrapped(text):
        text = text[1:-1]
    return text


unwrapped = _unwrapped


def _sizeof(text: str) -> str | None:
    """What `sizeof x` or `sizeof(x)` measures, folded; None for anything else."""
    match = _SIZEOF.match(_unwrapped(_folded(text)))
    return _unwrapped(match.group(1)) if match is not None else None


def _top_level_stars(folded: str) -> list[int]:
    """The offsets of the binary `*`s outside parentheses (not `sizeof`'s operand)."""
    depth, cuts = 0, []
    for pos, char in enumerate(folded):
        depth += {"(": 1, ")": -1}.get(char, 0)
        unary = folded[:pos].endswith("sizeof") or folded[pos - 1 : pos] in "*(+-/,"
        if depth == 0 and char == "*" and pos > 0 and not unary:
            cuts.append(pos)
    return cuts


def _factors(text: str) -> list[str] | None:
    """`a * b` into its two factors at the top level; None if it is not that."""
    folded = _unwrapped(_folded(text))
    cuts = _top_level_stars(folded)
    if len(cuts) != 1:
        return None
    return [folded[: cuts[0]], folded[cuts[0] + 1 :]]


def _outer_factors(text: str) -> list[tuple[str, str]]:
    """`a * b * c` cut at its first and its last top-level `*`: (a, b*c), (a*b, c)."""
    folded = _unwrapped(_folded(text))
    cuts = _top_level_stars(folded)
    return [
        (folded[:cut], folded[cut + 1 :]) for cut in dict.fromkeys(cuts[:1] + cuts[-1:])
    ]


def _value(text: str, macros: Mapping[str, int]) -> int | None:
    """A count or an extent as a number: `64`, `W`, `W + 1` of integer macros."""
    return extent_value(_unwrapped(" ".join(text.split())), macros)


def within_row(
    call: Call,
    row: Ref,
    fn: Function | None,
    source: SourceFile,
    macros: Mapping[str, int],
    column: int = 0,
) -> bool:
    """Whether the library `call` writes no more than the row `row` it is passed.

    `column` is where in the row the call's pointer starts (`&a[i][1]`: 1): the
    size must then fit in what is left of the row.
    """
    sized = _SIZED.get(call.name)
    if sized is None or sized[0] >= len(call.args):
        return False
    var: Var | None = fn.lookup(row.name) if fn is not None else None
    if var is None:
        var = next((g for g in source.globals if g.name == row.name), None)
    if var is None or var.pointers or len(var.dims) != len(row.subscripts) + 1:
        return False  # the row must be the last dimension of a declared array
    extent = var.dims[-1]
    text = _folded(row.render())
    element = {_folded(var.type), f"{text}[0]", f"*{text}"}
    size = call.args[sized[0]]
    if sized[1] is None and _sizeof(size) == text:
        return column == 0  # `sizeof a[i]`: the row itself, from its start
    if sized[1] is not None:
        count, each = call.args[sized[1]], _sizeof(size)
        return each in element and _count_fits(count, extent, macros, column)
    parts = _factors(size)
    if parts is None or extent is None:
        return False
    for count, each in (parts, parts[::-1]):
        if _sizeof(each) in element and _count_fits(count, extent, macros, column):
            return True
    return False


def element_count(
    call: Call, element: str, type_text: str, alike: tuple[str, ...] = ()
) -> str | None:
    """How many elements of type `type_text` library `call` writes, as text.

    `qsort(base, n, sizeof a[0], cmp)` sorts `n`; `memcpy(d, s, n * sizeof(T))`
    copies `n` when `T` is the element (`type_text`, `element` or `*element`
    minus its subscript, and `alike`: other names of the same type, are named
    as the element too). None otherwise: a byte
    count not made of `sizeof` the element is not read.
    """
    sized = _SIZED.get(call.name)
    if call.name == "strncpy" or sized is None or sized[0] >= len(call.args):
        return None
    base = _folded(element).split("[", 1)[0]
    names = {_folded(type_text), _folded(element), f"{base}[0]", f"*{base}"}
    names |= {_folded(name) for name in alike}
    size = call.args[sized[0]]
    if sized[1] is not None:
        if sized[1] >= len(call.args) or _sizeof(size) not in names:
            return None
        return call.args[sized[1]]
    if _sizeof(size) in names:
        return "1"
    # `n * sizeof(T)`, `sizeof(T) * n`, and `2 * W * sizeof(T)`: the count is the
    # product of the other factors.
    for left, right in _outer_factors(size):
        for count, each in ((left, right), (right, left)):
            if _sizeof(each) in names:
                return count
    return None


def _count_fits(
    count: str, extent: str | None, macros: Mapping[str, int], column: int = 0
) -> bool:
    """Whether `count` elements from element `column` fit in a row of `extent`."""
    if extent is None:
        return False
    if column == 0 and _unwrapped(_folded(count)) == _unwrapped(_folded(extent)):
        return True
    have, room = _value(count, macros), _value(extent, macros)
    return have is not None and room is not None and 0 <= have <= room - column


def size_why(call: Call, arg: str) -> str:
    """Why a sized library call on a row of `arg` is not a row write ("" if none)."""
    sized = _SIZED.get(call.name)
    text = _unwrapped(_folded(arg))
    address = text.startswith("&")
    groups = _unwrapped(text[1:] if address else text).count("[")
    if sized is None or sized[0] >= len(call.args) or groups < 1 + address:
        return ""  # no row: `&x[k]` of a flat array writes a range not modelled
    size = " ".join(call.args[sized[0]].split())
    if sized[1] is not None:
        size = f"{' '.join(call.args[sized[1]].split())} of {size}"
    return (
        f": its size `{size}` is not proved to fit in the row (`sizeof` the row, "
        "or the row's extent times `sizeof` an element)"
    )
