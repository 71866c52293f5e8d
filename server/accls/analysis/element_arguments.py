"""Elements picked by an index argument: `randn(seed, x)` writes only `seed[x]`.

`double randu(int *seed, int k) { seed[k] = f(seed[k]); ... }` touches one
element of the array it is passed, the one its index parameter names. A
summary by parameter position says only "writes through `seed`", so every
iteration would seem to write all of it. When each access of the parameter
in the callee (and in the callees it passes the parameter on to, with their
arguments replaced) is `p[e]` for one polynomial `e` of parameters the callee
never changes, the call is exactly an update of `seed[e']`, `e'` being `e`
with the call's arguments in place of the parameters. The reference the front
end recorded for the argument then becomes that update, so the dependence
test, the alias check and the data clauses see it like the loop's own access:
`seed[x]` of two iterations are disjoint, `seed[0]` or `seed[x / 2]` are not.

Anything else keeps the call an obstacle: the pointer copied, offset,
dereferenced, stored, indexed by a local or a global, or passed to a function
this file does not define.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.callee_guards import callee_protection
from accls.analysis.overloads import definitions
from accls.frontend import (
    AccessKind,
    Call,
    Function,
    Loop,
    Poly,
    Ref,
    SourceFile,
    Subscript,
    Var,
)
from accls.frontend.exprs import expression_poly

__all__ = ["element_write", "promote_element_arguments"]

_IDENT = re.compile(r"[A-Za-z_]\w*")
_DEPTH = 4  # callees passing the pointer on, at most


def _flat(var: Var | None) -> bool:
    """A one-level array or pointer: `int *p`, `int p[]`, `int p[N]`."""
    if var is None or var.unknown_shape:
        return False
    return (var.pointers == 1 and not var.dims) or (
        var.pointers == 0 and len(var.dims) == 1
    )


def _fixed_params(fn: Function) -> dict[str, int]:
    """The scalar parameters the body never assigns nor takes the address of."""
    changed = {r.name for r in fn.refs if r.is_write or r.escapes}
    return {
        p.name: i
        for i, p in enumerate(fn.params)
        if not p.pointers and not p.dims and p.name not in changed
    }


def _accesses(
    fn: Function, at: int, source: SourceFile, depth: int, seen: frozenset[str]
) -> tuple[list[tuple[Poly, bool]], bool] | None:
    """The subscripts (over `fn`'s parameter positions `#i`) of parameter `at`.

    Each with whether it is written; None when the parameter is used in any
    other way. The bool says whether some access writes.
    """
    if at >= len(fn.params) or not _flat(fn.params[at]):
        return None
    name = fn.params[at].name
    fixed = _fixed_params(fn)
    positions = {n: Poly.sym(f"#{i}") for n, i in fixed.items()}
    found: list[tuple[Poly, bool]] = []
    plain = 0
    for ref in fn.refs:
        if ref.name != name:
            continue
        if ref.escapes or ref.deref or ref.member or ref.into or ref.copies:
            return None
        if not ref.subscripts:
            if ref.is_write:
                return None  # the pointer itself re-pointed
            plain += 1
            continue
        if len(ref.subscripts) != 1:
            return None
        sub = ref.subscripts[0]
        if sub.indirect or sub.poly is None or not sub.poly.names() <= set(fixed):
            return None
        found.append((sub.poly.substitute(positions), ref.is_write))
    passed = 0
    for call in fn.call_sites:
        for index, arg in enumerate(call.args):
            if arg != name:
                continue
            passed += 1
            inner = _passed_on(call, index, fn, positions, source, depth, seen)
            if inner is None:
                return None
            found.extend(inner)
    if plain != passed:
        return None  # `q = p`, `p + 1`, `*p`: a use the pattern does not cover
    return found, any(w for _, w in found)


def _passed_on(
    call: Call,
    index: int,
    fn: Function,
    positions: dict[str, Poly],
    source: SourceFile,
    depth: int,
    seen: frozenset[str],
) -> list[tuple[Poly, bool]] | None:
    """The accesses of `call`'s callee through argument `index`, over `fn`'s params."""
    callee = source.function(call.name)
    if depth <= 0 or callee is None or call.name in seen:
        return None
    if len(callee.params) != len(call.args) or len(definitions(call.name, source)) > 1:
        return None
    got = _accesses(callee, index, source, depth - 1, seen | {call.name})
    if got is None:
        return None
    values: dict[str, Poly] = {}
    for i, arg in enumerate(call.args):
        poly = expression_poly(arg)
        if poly is not None and poly.names() <= set(positions):
            values[f"#{i}"] = poly.substitute(positions)
    out: list[tuple[Poly, bool]] = []
    for poly, write in got[0]:
        if not poly.names() <= set(values):
            return None  # indexed by an argument this function does not fix
        out.append((poly.substitute(values), write))
    return out


def _subscript(call: Call, index: int, source: SourceFile) -> Poly | None:
    """The one subscript, in the caller's terms, `call` writes through `index`."""
    callee = source.function(call.name)
    if callee is None or len(callee.params) != len(call.args):
        return None
    if len(definitions(call.name, source)) > 1:
        return None
    got = _accesses(callee, index, source, _DEPTH, frozenset({call.name}))
    if got is None or not got[1]:
        return None
    subs = {poly for poly, _ in got[0]}
    if len(subs) != 1:
        return None  # `p[k]` and `p[k + 1]`: more than one element
    values: dict[str, Poly] = {}
    for i, arg in enumerate(call.args):
        poly = expression_poly(arg)
        if poly is not None:
            values[f"#{i}"] = poly
    sub = next(iter(subs))
    if not sub.names() <= set(values):
        return None
    return sub.substitute(values)


def _argument(call: Call, arg: str, refs: tuple[Ref, ...]) -> Ref | None:
    """The one plain read of the array `arg` the front end recorded in `call`."""
    found = [
        r
        for r in refs
        if call.span.start_byte <= r.span.start_byte < call.span.end_byte
        and r.name == arg
    ]
    if len(found) != 1:
        return None  # `f(a, a[i])`: which one is the argument?
    ref = found[0]
    if ref.subscripts or ref.is_write or ref.escapes or ref.deref or ref.member:
        return None
    return ref


def _declared(name: str, fn: Function | None, source: SourceFile) -> Var | None:
    var = fn.lookup(name) if fn is not None else None
    if var is None and (fn is None or not fn.declarations(name)):
        var = next((g for g in source.globals if g.name == name), None)
    return var


def element_write(call: Call, index: int, loop: Loop, source: SourceFile) -> Ref | None:
    """The update `a[e]` this module recorded for argument `index` of `call`."""
    if index >= len(call.args) or not _IDENT.fullmatch(call.args[index]):
        return None
    poly = _subscript(call, index, source)
    if poly is None:
        return None
    arg = call.args[index]
    for ref in loop.refs:
        inside = call.span.start_byte <= ref.span.start_byte < call.span.end_byte
        if (
            inside
            and ref.name == arg
            and ref.kind is AccessKind.UPDATE
            and len(ref.subscripts) == 1
            and ref.subscripts[0].poly == poly
        ):
            return ref
    return None


def _same_element(one: Var, two: Var) -> bool:
    """Whether two flat arrays index elements of one type (`int` and `const int`)."""
    return " ".join(one.type.split()) == " ".join(two.type.split())


def _element_writes(nest: Loop, source: SourceFile) -> dict[int, Ref]:
    """The argument references promoted to element updates, by start byte."""
    fn = source.function(nest.function)
    out: dict[int, Ref] = {}
    for call in nest.calls:
        callee = source.function(call.name)
        for index, arg in enumerate(call.args):
            var = _declared(arg, fn, source) if _IDENT.fullmatch(arg) else None
            if var is None or not _flat(var) or callee is None:
                continue
            if index >= len(callee.params) or not _same_element(
                var, callee.params[index]
            ):
                continue  # `f(bytes, i)` with `int *p`: `p[i]` is not `bytes[i]`
            poly = _subscript(call, index, source)
            ref = _argument(call, arg, nest.refs) if poly is not None else None
            if ref is None or poly is None or ref.span.start_byte in out:
                continue
            sub = Subscript(text=poly.render(), poly=poly)
            # The callee's `atomic`/`critical` and its conditions stay on it.
            atomic, branch = callee_protection(call.name, index, source)
            out[ref.span.start_byte] = replace(
                ref,
                kind=AccessKind.UPDATE,
                subscripts=(sub,),
                atomic=ref.atomic or (atomic if atomic in ("omp", "acc") else ""),
                guarded=ref.guarded or branch,
            )
    return out


def _rebuilt(loop: Loop, promoted: dict[int, Ref]) -> Loop:
    refs = tuple(promoted.get(r.span.start_byte, r) for r in loop.refs)
    children = tuple(_rebuilt(c, promoted) for c in loop.children)
    return replace(loop, refs=refs, children=children)


def promote_element_arguments(nest: Loop, source: SourceFile) -> Loop:
    """`nest` with each array a callee updates at one index recorded as `a[e]`."""
    if not nest.calls or source.language == "fortran":
        return nest
    promoted = _element_writes(nest, source)
    return _rebuilt(nest, promoted) if promoted else nest
