"""Arrays each iteration owns: declared in the loop body, or allocated there.

`double t[64];` declared inside the body is a new object in every iteration
(its lifetime ends with the iteration), and so is the block of
`double *t = malloc(..)` when the pointer is declared there, never re-pointed
elsewhere, never has its address taken and never hands its value beyond the
locals. A dependence through such an array between two iterations would read
a dead object: there is none, and OpenMP and OpenACC make both private.
"""

from __future__ import annotations

from collections import Counter

from accls.frontend import Function, Loop, SourceFile, Span, TypeTable, Var

__all__ = ["iteration_arrays"]


def _owned(var: Var, types: TypeTable) -> bool:
    if var.static or var.unknown_shape:
        return False
    if var.dims and "*" not in var.shape:
        return True  # an array object (a VLA included)
    more = types.levels_of(var.type) if not var.shape else None
    if more and more.startswith("[") and "*" not in more:
        return True  # `real3 dr;` of `typedef double real3[3];`: an array object
    return (
        var.shape == "*"
        and var.fresh
        and not var.device
        and not var.address_taken
        and not var.leaves
    )


def _within(span: Span, outer: Span) -> bool:
    return outer.start_byte <= span.start_byte and span.end_byte <= outer.end_byte


def _apart(var: Var, loop: Loop, fn: Function, source: SourceFile) -> bool:
    """Every other declaration of `var`'s name is in a loop body beside `loop`.

    `real3 dr;` in two loops of one function: neither is in scope in the
    other's body, so a reference in `loop` means its own `dr`.
    """
    if var.span is None or any(p.name == var.name for p in fn.params):
        return False
    bodies = [other.body for other in source.loops() if other.function == fn.name]
    for other in fn.locals:
        if other.name != var.name or other.span == var.span:
            continue
        if other.span is None:
            return False
        around = [
            b for b in bodies if _within(other.span, b) and not _within(loop.span, b)
        ]
        if not around:
            return False
    return True


def iteration_arrays(
    loop: Loop, fn: Function | None, source: SourceFile
) -> frozenset[str]:
    """Names of the arrays (and fresh blocks) each iteration of `loop` owns.

    A name declared again outside the body, or also a parameter or a global, is
    left out: a reference might mean the other object.
    """
    if fn is None:
        return frozenset()
    if not loop.locals:
        return frozenset()
    inside = Counter(v.name for v in loop.locals)
    out: set[str] = set()
    for v in loop.locals:
        # Declared once in the whole function (so never a parameter either), and
        # no global of that name: every reference means this array.
        if inside[v.name] != 1:
            continue
        if fn.declarations(v.name) != 1 and not _apart(v, loop, fn, source):
            continue
        if v.name in source.global_names:
            continue
        # The function's own record of the local knows where its value goes.
        marked = fn.lookup(v.name)
        if marked is not None and _owned(marked, source.types):
            out.add(v.name)
    return frozenset(out)
