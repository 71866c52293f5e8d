"""Two pointer parameters that every call passes either one array or two apart.

`scale_into(double *y, const double *x, int n)` called as `scale_into(v, u, n)`
and as `scale_into(u, u, n)`: at each call `y` and `x` are either disjoint or
the same pointer value (offset 0), never a partial overlap (`x == y + 1`). The
loop is then safe when the dependence test finds no dependence carried by it
both with the two names apart (the ordinary test) and with the two names as one
array (this module: the references of one renamed to the other).
"""

from __future__ import annotations

from dataclasses import replace

from accls.analysis.access_paths import Target
from accls.analysis.budget import Budget, TooLarge
from accls.analysis.call_sites import same_or_apart_at_call_sites
from accls.analysis.dependence import nest_dependences
from accls.frontend import Function, Loop, SourceFile, Var

__all__ = ["same_or_apart"]


def _plain(var: Var | None, fn: Function) -> bool:
    """A one-level pointer parameter the function never reassigns or exposes."""
    return (
        var is not None
        and var.scope == "param"
        and any(p is var for p in fn.params)
        and var.pointers == 1
        and var.shape == "*"
        and not var.dims
        and not var.unknown_shape
        and not var.address_taken
        and not any(
            r.name == var.name
            and (r.escapes or (r.is_write and not r.subscripts and not r.deref))
            for r in fn.refs
        )
    )


def _renamed(loop: Loop, old: str, new: str) -> Loop:
    """The loop with every reference to `old` written as one to `new`."""
    return replace(
        loop,
        refs=tuple(replace(r, name=new) if r.name == old else r for r in loop.refs),
        children=tuple(_renamed(c, old, new) for c in loop.children),
    )


def _free_as_one(loop: Loop, one: str, two: str) -> bool:
    """No dependence carried by `loop` when `two` is the array `one` itself."""
    try:
        deps = nest_dependences(_renamed(loop, two, one), Budget())
    except TooLarge:
        return False
    return not any(d.array == one and d.carrier == loop.id for d in deps)


def same_or_apart(
    written: str,
    other: str,
    pairs: list[tuple[Target, Target]],
    fn: Function | None,
    source: SourceFile,
    loop: Loop,
) -> str | None:
    """Why `written` and `other` never overlap harmfully in `loop`, else None.

    Both must be plain pointer parameters of the loop's function, of one
    element type, that every call passes one variable (exact aliasing) or
    objects shown apart; and the loop must carry no dependence with the two as
    one array. The ordinary test has already cleared them as two arrays.
    """
    if fn is None or not pairs:
        return None
    for a, b in pairs:
        if a.kind != "pointee" or b.kind != "pointee":
            return None
        if a.root is None or b.root is None or a.root is b.root:
            return None
        if (a.root.name, b.root.name) != (written, other):
            return None
    one, two = pairs[0][0].root, pairs[0][1].root
    if one is None or two is None or not (_plain(one, fn) and _plain(two, fn)):
        return None
    if one.type != two.type:
        return None  # elements of two sizes: one index names two places
    sites = same_or_apart_at_call_sites(fn, written, other, source)
    if sites is None:
        return None
    same, apart = sites
    if same and not _free_as_one(loop, written, other):
        return None
    if not same:
        return None  # all apart: the ordinary call-site proof says so
    passed = f"passes one array to both ({', '.join(same)})"
    if apart:
        passed += f" or distinct objects ({', '.join(apart)})"
    return (
        f"`{written}` and `{other}` never overlap in part: every call of "
        f"`{fn.name}()` {passed}, and as one array the loop carries no dependence"
    )
