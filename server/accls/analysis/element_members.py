"""Array members of array elements, `b[l].lo[k]`, tested as `b.lo[l][k]`.

The front end names such a reference by its path, `b[l].lo`, so the dependence
test saw the element's subscript only as part of a name: every iteration of a
loop over `l` seemed to write the one array `b[l].lo`. When `lo` is an array
declared inside the struct (`struct box { double lo[3]; } b[N]`, or the
block of `struct box *b`), each element's member is storage of its own, laid
out as a row of a 2-D array would be: `b[l].lo[k]` is tested as `b.lo[l][k]`,
exactly; other pointers to the block are the aliasing checks' business, as
for any array.

A pointer member (`struct blk { double *a; } bl[N]`) is such a row too when
`member_rows` proves that each element's pointer reaches a block of its own
(a row table whose rows are `bl[l].a`); unproved, the path keeps its name and
the refusal says that the pointers are not proved distinct. A nest that
reaches the array in any other way (a whole element, an address, a call's
argument, a deeper path) keeps today's names too, so no reference of the same
bytes escapes the test.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from accls.analysis.budget import Budget
from accls.analysis.field_views import declaration, field_dependences
from accls.analysis.member_rows import members_apart
from accls.analysis.model import Dependence
from accls.analysis.nest_views import NestViews, nest_views
from accls.frontend import (
    Function,
    Loop,
    Poly,
    Ref,
    SourceFile,
    Span,
    Subscript,
    Var,
)
from accls.frontend.exprs import expression_poly

__all__ = ["member_dependences"]

# `b[l].lo`, `b[i][j].lo`: a plain array's elements, then one member.
_PATH = re.compile(r"^([A-Za-z_]\w*)((?:\[[^\[\]]*\])+)\.([A-Za-z_]\w*)$")
# `b[l].in.v`: the same, through members that are structs of the element.
_NESTED = re.compile(r"^([A-Za-z_]\w*)((?:\[[^\[\]]*\])+)((?:\.[A-Za-z_]\w*)+)$")
# What a nest's views were built with: macro values, stable names, relations.
Known = tuple[Mapping[str, int], frozenset[str], tuple[tuple[Poly, bool], ...]]
_WORD = r"(?<![\w.>]){}(?!\w)"


def _element_subscripts(text: str) -> tuple[Subscript, ...]:
    """`[l][j + 1]` as subscripts; one that reads an array is not a polynomial."""
    out = []
    for part in re.findall(r"\[([^\[\]]*)\]", text):
        poly = expression_poly(part)
        out.append(Subscript(part.strip(), poly))
    return tuple(out)


def _inline_member(
    ref: Ref, fn: Function | None, source: SourceFile
) -> tuple[str, Ref, bool] | None:
    """(`b`, `b.lo[l][k]`, overlaid) for `b[l].lo[k]`, when `lo` is an inline array.

    Through inline members too: `b[l].in.v[k]` is `b.in.v[l][k]`. `overlaid`
    says a union lies on the way, whose other members share the bytes.
    """
    match = _NESTED.match(ref.name)
    if match is None or ref.deref or ref.escapes or ref.fortran or not ref.member:
        return None
    base, elements, path = match.groups()
    var = declaration(base, fn, source)
    if var is None or var.unknown_shape or var.volatile:
        return None
    # Elements of one array, or of the one block a pointer reaches (`block *b`):
    # distinct subscripts, distinct elements. A table of pointers (`T *t[4]`,
    # `T **t`) may hold one block twice.
    if not (var.dims and not var.pointers) and (var.pointers != 1 or var.dims):
        return None
    *inner, member = path[1:].split(".")
    fields, overlaid = _members(var.type, source)
    for name in inner:  # inline structs or unions on the way
        step = fields.get(name) if fields is not None else None
        if step is None or step.dims or step.pointers or step.unknown_shape:
            return None
        fields, under = _members(step.type, source)
        overlaid = overlaid or under
    decl = fields.get(member) if fields is not None else None
    if decl is None or decl.unknown_shape:
        return None
    if inner or overlaid:
        if not _inline(decl):
            return None
    elif not _own_rows(decl, var, fn, source):
        return None
    subscripts = _element_subscripts(elements)
    if len(subscripts) != max(len(var.dims), 1) or len(ref.subscripts) != max(
        len(decl.dims), 1
    ):
        return None
    # `b.lo` is no name C allows for an array `b`: it collides with none.
    renamed = replace(
        ref, name=f"{base}{path}", subscripts=(*subscripts, *ref.subscripts)
    )
    return base, renamed, overlaid


def _members(type_: str, source: SourceFile) -> tuple[Mapping[str, Var] | None, bool]:
    """The members of a struct or union type, and whether some share bytes."""
    types = source.types
    return types.fields_of(type_), types.is_union(type_) or types.overlays(type_)


def _inline(decl: Var) -> bool:
    """An array member declared inside its struct (`double v[3]`)."""
    return bool(decl.dims) and not decl.pointers


def _own_rows(decl: Var, var: Var, fn: Function | None, source: SourceFile) -> bool:
    """An inline array member, or one pointer each element's own block (proved)."""
    if decl.dims:
        return not decl.pointers
    return decl.pointers == 1 and members_apart(var, decl.name, fn, source)


def _pointer_member(ref: Ref, fn: Function | None, source: SourceFile) -> bool:
    """Whether `ref` is `bl[l].a[k]` with `a` a pointer member of an element."""
    match = _PATH.match(ref.name)
    if match is None or not ref.member or ref.deref:
        return False
    var = declaration(match.group(1), fn, source)
    fields = source.types.fields_of(var.type) if var is not None else None
    decl = fields.get(match.group(3)) if fields is not None else None
    return decl is not None and bool(decl.pointers) and not decl.dims


def _reached_otherwise(base: str, nest: Loop, converted: set[Span]) -> bool:
    """Whether the nest reaches `base`'s storage other than by converted references."""
    word = re.compile(_WORD.format(re.escape(base)))
    for ref in nest.refs:
        if ref.span in converted:
            continue
        if ref.name == base and ref.field and not ref.deref and not ref.escapes:
            continue  # `b[l].n`, a scalar member: its own bytes (same member: below)
        if ref.name == base or word.match(ref.name):
            return True
    return any(word.search(arg) for call in nest.calls for arg in call.args)


def _renamed_refs(
    nest: Loop, fn: Function | None, source: SourceFile
) -> dict[Span, Ref]:
    """Each convertible reference of the nest, by its span, as its 2-D form."""
    found: dict[str, dict[Span, Ref]] = {}
    overlaid: set[str] = set()
    for ref in nest.refs:
        got = _inline_member(ref, fn, source)
        if got is not None:
            found.setdefault(got[0], {})[ref.span] = got[1]
            if got[2]:
                overlaid.add(got[0])
    out: dict[Span, Ref] = {}
    for base, refs in found.items():
        if _reached_otherwise(base, nest, set(refs)):
            continue
        members = {ref.field for ref in nest.refs if ref.name == base}
        if members & {ref.name.split(".")[1] for ref in refs.values()}:
            continue  # `b[l].lo` or `b[l].in` whole somewhere (`p = b[l].lo`)
        paths = {ref.name for ref in refs.values()}
        if base in overlaid and (members or len(paths) > 1):
            continue  # a union's members, `u[l].a` and `u[l].s.x`, share bytes
        out.update(refs)
    return out


def _with_refs(loop: Loop, renamed: dict[Span, Ref]) -> Loop:
    refs = tuple(renamed.get(ref.span, ref) for ref in loop.refs)
    children = tuple(_with_refs(child, renamed) for child in loop.children)
    return replace(loop, refs=refs, children=children)


def member_dependences(
    nest: Loop,
    probe: Loop,
    views: NestViews,
    budget: Budget,
    source: SourceFile,
    known: Known,
) -> tuple[Dependence, ...]:
    """The nest's carried dependences, each inline array member of an element exact.

    `probe` is the nest with its calls' accesses (or the nest itself), `views`
    the nest's views, built with `known` (macro values, stable names, relations).
    """
    fn = source.function(nest.function)
    renamed = _renamed_refs(probe, fn, source)
    names = {ref.span: ref.name for ref in probe.refs if ref.span in renamed}
    if renamed:
        probe = _with_refs(probe, renamed)
    if probe is nest:
        found = field_dependences(nest, budget, views, fn, source)
    else:
        tested = nest_views(probe, *known)
        found = field_dependences(probe, budget, tested, fn, source)
        found = tuple(_named_back(dep, renamed, names) for dep in found)
    # A loop choosing the element, carrying a dependence of an unproved
    # pointer member: the elements' pointers are what is unknown.
    unproved = {
        ref.span: ref.name
        for ref in probe.refs
        if ref.span not in renamed and _pointer_member(ref, fn, source)
    }
    chooses = {x.id: x.var for x in probe.walk() if x.var}
    return tuple(
        _unproved(dep)
        if _chosen(unproved.get(dep.source, ""), chooses.get(dep.carrier or -1, ""))
        else dep
        for dep in found
    )


def _chosen(path: str, var: str) -> bool:
    """Whether `var` picks the element of the path `bl[l].a`."""
    match = _PATH.match(path)
    return bool(var and match and re.search(_WORD.format(var), match.group(2)))


def _unproved(dep: Dependence) -> Dependence:
    """The dependence of an element's pointer member, said as what is unproved."""
    return replace(
        dep,
        exact=False,
        reason="the elements' pointers are not proved distinct: two elements' "
        "members may point into one block (each must be set only from an "
        "allocation of its own, `b[l].a = malloc(..)`, and reach no other name)",
    )


def _named_back(
    dep: Dependence, renamed: dict[Span, Ref], names: dict[Span, str]
) -> Dependence:
    """The dependence named as its source is written: `b[l].lo`, not `b.lo`."""
    if dep.source not in names:
        return dep
    name = names[dep.source]
    tested = f"`{renamed[dep.source].name}`"
    return replace(dep, array=name, reason=dep.reason.replace(tested, f"`{name}`"))
