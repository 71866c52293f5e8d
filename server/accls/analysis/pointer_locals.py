"""A pointer declared in a loop body into a shared array: `double *s = a[i % 4];`.

The pointer is the iteration's own, but what it points to is not: `s[k]` is
`a[i % 4][k]`, an element of the shared array, and two iterations that pick one
row write one element. The nest is rewritten so that each `s[k]` (and `*s`) is
recorded as that element: `a[e][k]` for a row of a two-dimensional array,
`a[e + k]` for `a + e` or `&a[e]` into a flat one. Only arrays declared with
their dimensions qualify (no pointer of rows that may alias), or, for a flat
one, a local or parameter `T *a` that the nest never re-points; the pointer must
be set once, by its declaration or by one statement after it that every use
follows on a path through it, and never copied, passed or moved, and the
names of `e` (with the body's scalars substituted, as at the initializer) must
keep their values through the body (loop variables, or names the nest never
writes). Anything else leaves the nest as it was.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.frontend import Loop, Poly, Ref, SourceFile, Subscript, Var
from accls.frontend.exprs import expression_poly

__all__ = [
    "all_loops",
    "declared_array",
    "parsed_address",
    "promote_pointer_locals",
    "rebuilt_nest",
    "rewritten_uses",
]

_NAME = re.compile(r"[A-Za-z_]\w*")


def promote_pointer_locals(nest: Loop, source: SourceFile) -> Loop:
    """`nest` with each access through a body pointer into an array as the element."""
    if source.language == "fortran":
        return nest
    loops = all_loops(nest)
    promoted: dict[int, Ref] = {}
    dropped: set[int] = set()
    for loop in loops:
        for var in loop.locals:
            found = _target(var, loop, nest, loops, source)
            if found is None:
                continue
            base, start, row, column, (lo, hi) = found
            rewritten = rewritten_uses(var.name, loop, base, start, row, column)
            if not rewritten:
                continue  # a use not rewritten: the nest stays as it was
            promoted.update(rewritten)
            # `a[e]` in the initializer computes an address: it reads nothing
            dropped |= {
                r.span.start_byte
                for r in nest.refs
                if r.name == base and lo <= r.span.start_byte < hi
            }
    return rebuilt_nest(nest, promoted, dropped) if promoted else nest


def all_loops(nest: Loop) -> list[Loop]:
    """`nest` and every loop inside it."""
    out, todo = [], [nest]
    while todo:
        loop = todo.pop()
        out.append(loop)
        todo.extend(loop.children)
    return out


def declared_array(name: str, nest: Loop, source: SourceFile) -> Var | None:
    """The declaration `name` has in `nest`'s function, else the global one."""
    fn = source.function(nest.function)
    var = fn.lookup(name) if fn is not None else None
    if var is None and (fn is None or not fn.declarations(name)):
        var = next((g for g in source.globals if g.name == name), None)
    return var


def _target(
    var: Var, loop: Loop, nest: Loop, loops: list[Loop], source: SourceFile
) -> tuple[str, Subscript, bool, Subscript, tuple[int, int]] | None:
    """The array, the start, whether a row (`a[e]` of a 2-D array), its column.

    And the initializer's byte range.
    """
    if var.pointers != 1 or var.dims or var.span is None or var.address_taken:
        return None
    if sum(v.name == var.name for lp in loops for v in lp.locals) != 1:
        return None  # two declarations of the name: which one is meant
    own = [r for r in nest.refs if r.name == var.name]
    sets = [r for r in own if r.is_write and not r.subscripts and not r.deref]
    plain = [r for r in own if not r.is_write and not r.subscripts and not r.deref]
    if len(sets) != 1 or plain or any(r.escapes or r.into or r.member for r in own):
        return None  # moved, copied, passed on, or a member through it
    origin = var.span.start_byte
    text = source.data[origin : var.span.end_byte + 200].decode("utf-8", "replace")
    init = re.match(rf"[^;]*?\b{re.escape(var.name)}\s*=\s*([^;,{{}}]+);", text)
    if init is None:  # `T *s;` then `s = &a[e];`, before every use
        later = _later_set(var, sets[0], own, source)
        if later is None:
            return None
        init, origin = later
    found = parsed_address(" ".join(init.group(1).split()))
    if found is None:
        return None
    base, start, row, column = found
    array = declared_array(base, nest, source)
    if array is None or not (
        _dimensioned(array, row) or (not row and _kept_pointer(array, nest))
    ):
        return None
    if any(v.name == base for lp in loops for v in lp.locals):
        return None  # the iteration's own array
    at = origin
    fixed = {
        lp.var for lp in loops if lp.var and lp.body.start_byte <= at < lp.body.end_byte
    }
    written = {r.name for r in nest.refs if r.is_write} - fixed
    span = (origin + init.start(1), origin + init.end(1))
    # `&a[i3]`: the initializer's own reference has the subscript with the
    # body's scalars substituted (`8 * i2` for `i3 = 8 * i2`), as they are there.
    given = _initializer_subscript(base, nest, span) if not row else None
    if given is not None and given.poly is not None:
        names = set(given.poly.names()) | set(_NAME.findall(column))
        first = given
    else:
        names = set(_NAME.findall(f"{start} {column}"))
        first = Subscript(text=start, poly=expression_poly(start))  # None: unknown
    if names & written:
        return None  # a name the body changes after the pointer is set
    col = Subscript(text=column, poly=expression_poly(column))
    return base, first, row, col, span


def _later_set(
    var: Var, set_: Ref, own: list[Ref], source: SourceFile
) -> tuple[re.Match[str], int] | None:
    """`s = <address>;`, the statement that sets `s` after its declaration.

    Only when every other reference comes after it, on a path through it (its
    context a prefix of theirs): each use then sees the address it stores.
    """
    if var.span is None:
        return None
    data = source.data
    if set_.span.start_byte <= data.find(b";", var.span.start_byte):
        return None  # part of the declaration, which has no plain initializer
    before = data[: set_.span.start_byte].rstrip()
    if not before or before[-1:] not in (b";", b"{", b"}", b")"):
        return None  # `x = s = ...`: not a statement of its own
    start = set_.span.start_byte
    text = data[start : start + 200].decode("utf-8", "replace")
    init = re.match(rf"{re.escape(var.name)}\s*=\s*([^;,{{}}]+);", text)
    if init is None:
        return None
    depth = len(set_.context)
    for ref in own:
        if ref is set_:
            continue
        if ref.span.start_byte < start + init.end() or ref.context[:depth] != (
            set_.context
        ):
            return None
    return init, start


def _dimensioned(array: Var, row: bool) -> bool:
    """An array declared with its dimensions (rows that cannot alias)."""
    return not array.pointers and len(array.dims) == 1 + row


def _kept_pointer(array: Var, nest: Loop) -> bool:
    """A local or parameter `T *a` that the nest never re-points.

    `s = a + e` then makes `s[k]` exactly `a[e + k]`: only a global could be
    re-pointed by a call, and only an address taken by another pointer.
    """
    if array.pointers != 1 or array.dims or array.levels != "*":
        return False
    if array.scope == "global" or array.address_taken:
        return False
    return not any(
        r.name == array.name and r.is_write and not r.subscripts and not r.deref
        for r in nest.refs
    )


def _initializer_subscript(
    base: str, nest: Loop, span: tuple[int, int]
) -> Subscript | None:
    """The one subscript of the reference `base[e]` inside the initializer."""
    found = [
        r
        for r in nest.refs
        if r.name == base and span[0] <= r.span.start_byte < span[1]
    ]
    if len(found) != 1 or len(found[0].subscripts) != 1:
        return None
    return found[0].subscripts[0]


def parsed_address(text: str) -> tuple[str, str, bool, str] | None:
    """The name, e, whether a row, and the column c of an address.

    `a` / `a + e` / `&a[e]` (flat), or a row of a 2-D array, at column c:
    `a[e]` / `&a[e][0]` (c = 0), `a[e] + c` / `&a[e][c]`.
    """
    if m := re.fullmatch(r"([A-Za-z_]\w*)", text):
        return m[1], "0", False, "0"
    if m := re.fullmatch(r"([A-Za-z_]\w*) \+ ([^\[\]&]+)", text):
        return m[1], m[2], False, "0"
    if m := re.fullmatch(r"& ?([A-Za-z_]\w*) ?\[([^\[\]]+)\]", text):
        return m[1], m[2].strip(), False, "0"
    if m := re.fullmatch(r"([A-Za-z_]\w*) ?\[([^\[\]]+)\]", text):
        return m[1], m[2].strip(), True, "0"
    if m := re.fullmatch(r"([A-Za-z_]\w*) ?\[([^\[\]]+)\] \+ ([^\[\]&]+)", text):
        return m[1], m[2].strip(), True, m[3].strip()  # `a[e] + c`: column c
    if m := re.fullmatch(r"& ?([A-Za-z_]\w*) ?\[([^\[\]]+)\] ?\[([^\[\]]+)\]", text):
        return m[1], m[2].strip(), True, m[3].strip()  # `&a[e][c]`
    return None


def rewritten_uses(
    name: str,
    loop: Loop,
    base: str,
    start: Subscript,
    row: bool,
    column: Subscript | None = None,
) -> dict[int, Ref]:
    """Each access `name[k]` or `*name` of `loop` as the array's element.

    `column`: where in the row the pointer points (`a[e] + c`), `name[k]` being
    `a[e][c + k]`.
    """
    out: dict[int, Ref] = {}
    for ref in loop.refs:
        if ref.name != name or not (ref.subscripts or ref.deref):
            continue
        if len(ref.subscripts) > 1 or (ref.deref and ref.subscripts):
            return {}  # `s[k][j]`, `*s[k]`: not one element of the array
        inner = ref.subscripts[0] if ref.subscripts else Subscript("0", Poly.const(0))
        if row and column is not None and column.text != "0":
            inner = _sum(column, inner)
        subs: tuple[Subscript, ...] = (start, inner)
        if not row:
            poly = (
                start.poly + inner.poly
                if start.poly is not None and inner.poly is not None
                else None
            )
            subs = (Subscript(f"{start.text} + {inner.text}", poly, inner.indirect),)
        out[ref.span.start_byte] = replace(ref, name=base, subscripts=subs, deref=False)
    return out


def _sum(one: Subscript, two: Subscript) -> Subscript:
    """The subscript `one + two`; its polynomial when both have one."""
    poly = (
        one.poly + two.poly if one.poly is not None and two.poly is not None else None
    )
    return Subscript(f"{one.text} + {two.text}", poly, one.indirect or two.indirect)


def rebuilt_nest(loop: Loop, promoted: dict[int, Ref], dropped: set[int]) -> Loop:
    """`loop` with the refs at `promoted` replaced and those at `dropped` gone."""
    refs = tuple(
        promoted.get(r.span.start_byte, r)
        for r in loop.refs
        if r.span.start_byte not in dropped
    )
    children = tuple(rebuilt_nest(c, promoted, dropped) for c in loop.children)
    return replace(loop, refs=refs, children=children)
