"""Which secondary inductions have a closed form: the checks on the whole function.

The walk notes candidates per loop (`secondary_candidates`): a variable the
header initialises and that the increment, or one whole statement of the body,
advances by a constant. Once every reference of the function is known,
`checked_secondaries` keeps those whose value is surely `start + step*k`: an
integer local (or parameter) declared once, whose address is never taken,
written in the loop only by its one advance; its start and the loop's lower
bound read only such locals and integer macros the loop never writes; the loop
variable changes only in the increment; a body advance runs on every path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from tree_sitter import Node

from accls.frontend.exprs import to_poly
from accls.frontend.forward_subst import integer_macros, integer_scalar
from accls.frontend.model import Ref, Subscript, Var
from accls.frontend.poly import Poly
from accls.frontend.secondary_inductions import (
    Secondary,
    SecondaryLoop,
    header_inits,
    header_steps,
    step_of,
)
from accls.frontend.typetable import TypeTable

__all__ = [
    "checked_secondaries",
    "entry_starts",
    "resolved_scalars",
    "secondary_candidates",
]


def resolved_scalars(variables: Sequence[Var], types: TypeTable) -> list[Var]:
    """`variables`, those of a typedef'd scalar type (`s64Int`) with that scalar type.

    Only a typedef chain that adds no pointer or array level counts: the
    variable is then exactly a variable of the scalar type.
    """
    out: list[Var] = []
    for var in variables:
        base = types.scalar_base(var.type) if var.type else None
        out.append(var if base is None or base == var.type else replace(var, type=base))
    return out


def _body_advances(
    node: Node, loop_id: int, refs: Sequence[Ref], span: tuple[int, int]
) -> dict[str, tuple[int, int, int]]:
    """`name -> (step, ref index, line)` for whole statements `x++;` of the body."""
    body = node.child_by_field_name("body")
    out: dict[str, tuple[int, int, int]] = {}
    if body is None or body.type != "compound_statement":
        return out
    for child in body.named_children:
        if child.type != "expression_statement" or child.named_child_count != 1:
            continue
        expr = child.named_children[0]
        if expr is None:
            continue
        found = step_of(expr)
        if found is None or not isinstance(found[1], int) or not found[1]:
            continue
        name = found[0]
        at = [
            k
            for k in range(*span)
            if refs[k].name == name
            and refs[k].is_write
            and child.start_byte <= refs[k].span.start_byte < child.end_byte
        ]
        if len(at) != 1:
            continue
        ref = refs[at[0]]
        direct = ref.context[-1:] == (loop_id,) and ref.loops[-1:] == (loop_id,)
        if direct and not ref.guarded and name not in out:
            out[name] = (found[1], at[0], child.start_point.row + 1)
    return out


def secondary_candidates(
    node: Node,
    loop_id: int,
    refs: Sequence[Ref],
    marks: tuple[int, int, int],
    subscript: Callable[[Node], Subscript],
    no_skip: bool,
    decls: tuple[Sequence[Var], Sequence[Var]] = ((), ()),
) -> SecondaryLoop | None:
    """The loop's candidate secondary inductions, from its header and body.

    `marks` are the indices of the loop's first reference, of its increment's
    first, and one past its last; `no_skip` is false after a `continue` or a
    `break` in the body (a body advance may then not run); `decls` are the
    variables the header declares and those declared inside the loop.
    """
    start, update, end = marks
    steps = header_steps(node)
    if not steps or not isinstance(steps[0][1], int) or not steps[0][1]:
        return None
    var, step = steps[0][0], steps[0][1]
    inits = header_inits(node.child_by_field_name("initializer"))
    if var not in inits:
        return None
    lower = to_poly(inits[var][0])
    if lower is None:
        return None
    items: list[Secondary] = []
    line = node.start_point.row + 1
    for name, amount, _ in steps[1:]:
        if name != var and isinstance(amount, int) and amount:
            writes = [k for k in range(update, end) if refs[k].name == name]
            if len(writes) != 1:
                continue
            if name in inits:
                items.append(Secondary(name, subscript(inits[name][0]), amount, line))
            else:
                own = Subscript(text=name, poly=Poly.sym(name))
                items.append(Secondary(name, own, amount, line, entry=True))
    header = {item.name for item in items}
    if no_skip:
        for name, (amount, at, where) in _body_advances(
            node, loop_id, refs, (start, update)
        ).items():
            if name != var and name in inits and name not in header:
                value = subscript(inits[name][0])
                items.append(Secondary(name, value, amount, where, after=at))
    if not items:
        return None
    return SecondaryLoop(
        var=var,
        lower=lower,
        step=step,
        ref_start=start,
        ref_end=end,
        update_start=update,
        items=tuple(items),
        declared=tuple(decls[0]),
        inner=frozenset(v.name for v in decls[1]),
    )


def entry_starts(
    loop: SecondaryLoop, values: Mapping[str, Subscript]
) -> SecondaryLoop | None:
    """The loop with each `entry` start replaced by the value reaching its header.

    `values` are those forward substitution found; an entry item without one is
    dropped (its start is not known).
    """
    items: list[Secondary] = []
    for item in loop.items:
        if not item.entry:
            items.append(item)
        elif item.name in values:
            items.append(replace(item, start=values[item.name]))
    return replace(loop, items=tuple(items)) if items else None


def checked_secondaries(
    refs: Sequence[Ref],
    loops: Sequence[SecondaryLoop],
    variables: Sequence[Var],
    unsubstituted: frozenset[int],
    macros: Mapping[str, str],
) -> list[SecondaryLoop]:
    """The candidates whose closed form holds (see the module's docstring)."""
    if not loops:
        return []
    counts: dict[str, int] = {}
    for var in variables:
        counts[var.name] = counts.get(var.name, 0) + 1
    fit = {
        v.name
        for v in variables
        if counts[v.name] == 1 and integer_scalar(v) and not v.static
    }
    fit -= {r.name for r in refs if r.escapes}
    # Names a start may read: every declaration of them an integer, whichever
    # one the start sees (the loop must not write it, checked below).
    odd = {v.name for v in variables if not integer_scalar(v) or v.static}
    escaped = {r.name for r in refs if r.escapes}
    readable = {v.name for v in variables} - odd - escaped
    out: list[SecondaryLoop] = []
    for loop in loops:
        # A header's declaration names one variable throughout the loop,
        # unless the body declares the name again.
        own = {
            v.name
            for v in loop.declared
            if integer_scalar(v) and not v.static and v.name not in loop.inner
        }
        shadowed = {v.name for v in loop.declared} | loop.inner
        fit_here = (fit - shadowed) | (own - escaped)
        inside = range(loop.ref_start, loop.ref_end)
        written = {refs[k].name for k in inside if refs[k].is_write}
        var_writes = [
            k for k in inside if refs[k].name == loop.var and refs[k].is_write
        ]
        if loop.var not in fit_here or any(k not in unsubstituted for k in var_writes):
            continue
        items: list[Secondary] = []
        for item in loop.items:
            names = set(loop.lower.names())
            if item.start.poly is None or item.start.indirect:
                continue
            names |= item.start.poly.names()
            unknown = {n for n in names if n not in fit_here | readable}
            if unknown - integer_macros(macros, unknown) or names & written:
                continue
            if item.name not in fit_here or item.step % loop.step:
                continue
            advances = [
                k for k in inside if refs[k].name == item.name and refs[k].is_write
            ]
            if len(advances) != 1:
                continue
            if item.after < 0 and advances[0] not in unsubstituted:
                continue
            if item.after >= 0 and advances[0] != item.after:
                continue
            items.append(item)
        if items:
            out.append(replace(loop, items=tuple(items)))
    return out
