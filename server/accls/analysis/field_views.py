"""Distinct fields of an array's struct elements never meet: `r[i].sum`, `r[j].val`.

A loop writing `r[i].sum` and reading `r[i + 1].val` has no dependence: the two
fields of a struct occupy separate bytes of any element. That holds only when
the elements are a known struct (a union's fields overlap, and so does a
struct holding an anonymous union) and every reference to the array names one
field directly (`r[i].f`); a whole element (`r[i] = t`, `&r[i]`) or a deeper
path keeps the array's references together. Bit-fields share bytes: a store
to `p[i].lo` reads and rewrites the byte that holds `p[i].hi`, so the
bit-fields of a struct are one group (C11 makes adjacent ones one memory
location: a run of them, up to a member that is not one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from accls.analysis.budget import Budget
from accls.analysis.dependence import nest_dependences
from accls.analysis.model import Dependence
from accls.analysis.nest_views import NestViews, View
from accls.frontend import Function, Loop, SourceFile, Var

__all__ = ["declaration", "field_dependences", "field_groups"]


def declaration(name: str, fn: Function | None, source: SourceFile) -> Var | None:
    """The one declaration `name` means in `fn`: a local, a parameter or a global."""
    if fn is not None and fn.declarations(name) > 1:
        return None
    found = fn.lookup(name) if fn is not None else None
    if found is not None:
        return found
    if fn is not None and name in {p.name for p in fn.params}:
        return None
    matches = [g for g in source.globals if g.name == name]
    return matches[0] if len(matches) == 1 else None


def field_groups(
    array: str, views: tuple[View, ...], fn: Function | None, source: SourceFile
) -> tuple[tuple[View, ...], ...]:
    """The references of `array` in groups that may meet: one group per field."""
    fields = {view.ref.field for view in views}
    if len(fields) < 2 or "" in fields:
        return (views,)
    var = declaration(array, fn, source)
    if var is None or var.unknown_shape:
        return (views,)
    known = source.types.fields_of(var.type)
    if known is None or source.types.is_union(var.type) or not fields <= set(known):
        return (views,)
    # Each reference must reach an element of the declared struct type itself.
    depth = len(var.dims) + var.pointers
    if any(len(view.ref.subscripts) != depth for view in views):
        return (views,)
    where = _locations(known)
    return tuple(
        tuple(view for view in views if where[view.ref.field] == group)
        for group in sorted({where[name] for name in fields})
    )


def _locations(fields: Mapping[str, Var]) -> dict[str, str]:
    """Each field's memory location: its name, or its run of adjacent bit-fields.

    A run ends at a member that is not a bit-field (a zero-width one, which has
    no name here, is not seen: its neighbours stay together, the safe side).
    """
    out = {}
    run = 0
    for name, var in fields.items():
        if var.bitfield:
            out[name] = f" bits {run}"  # no field's name has a space
        else:
            out[name] = name
            run += 1
    return out


def field_dependences(
    nest: Loop,
    budget: Budget,
    views: NestViews,
    fn: Function | None,
    source: SourceFile,
) -> tuple[Dependence, ...]:
    """`nest_dependences` of the nest, each field of a struct array on its own.

    Only carried dependences are asked for (as the analysis' facts need).
    """
    apart = {
        array: groups
        for array, found in views.arrays.items()
        if len(groups := field_groups(array, found, fn, source)) > 1
    }
    if not apart:
        return nest_dependences(nest, budget, False, views)
    rest = {a: v for a, v in views.arrays.items() if a not in apart}
    out = list(nest_dependences(nest, budget, False, replace(views, arrays=rest)))
    for array, groups in apart.items():
        for group in groups:
            one = replace(views, arrays={array: group})
            out.extend(nest_dependences(nest, budget, False, one))
    return tuple(out)
