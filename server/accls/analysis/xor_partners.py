"""Arrays touched in pairs `a[i]`, `a[i ^ j]` that only a pair's lower index updates.

A bitonic stage, `int l = i ^ j; if (l > i) swap(a[i], a[l]);`, looks like a
carried dependence: iteration `l` reads what iteration `i` writes. It is
none. With `j` the same in every iteration, `x -> x ^ j` undoes itself
(`(x ^ j) ^ j == x`), so the indices fall into pairs `{x, x ^ j}` that share
no member, and under `l > i` only the lower index of a pair runs the body:
iteration `l` sees `l ^ j == i < l` and touches nothing. Two iterations
therefore touch disjoint pairs, whatever `j` holds (a power of two or not;
with `j == 0` no iteration touches the array at all).

The proof holds for an array when, in the loop: every reference to it has the
one subscript `i` (the loop variable, never written in the body) or `l`; `l`
is an integer local declared in the body, written there once, at the body's
top level before any such reference, as `i ^ e` (or `e ^ i`), where `e` names
only integer locals and parameters (and macros) that the loop never writes and
whose address is never taken; and a guard that holds at every such reference
gives `l - i - c >= 0` with `c >= 1` (`ref_guards`, which also checks that
neither name changes between the test and the reference).
"""

from __future__ import annotations

import re

from accls.analysis.integer_kinds import signedness
from accls.analysis.nest_views import integer_macros
from accls.analysis.ref_guards import function_branches, guard_facts
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import Function, Loop, Poly, Ref, SourceFile

__all__ = ["xor_pair_arrays"]

_WORD = re.compile(r"[A-Za-z_]\w*")
_CALL = re.compile(r"[A-Za-z_]\w*\s*\(")
_PLAIN = re.compile(r"[\w\s+\-*/%<>&|()]*")


def _value(ref: Ref, source: SourceFile) -> str | None:
    """The text assigned by `name = value;` or a declaration's `= value`."""
    rest = source.data[ref.span.end_byte : ref.span.end_byte + 200].decode(
        "utf-8", errors="replace"
    )
    stripped = rest.lstrip()
    if not stripped.startswith("=") or stripped.startswith("=="):
        return None
    end = stripped.find(";")
    return stripped[1:end] if end > 0 else None


def _unwrap(text: str) -> str:
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        inner = text[1:-1]
        depth = 0
        for char in inner:
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth < 0:
                return text
        text = inner.strip()
    return text


def _xor_operand(value: str, var: str) -> str | None:
    """`e` of `var ^ e` or `e ^ var` (parenthesised or not); None for other values."""
    text = _unwrap(value)
    depth = 0
    cuts = []
    for pos, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and char == "^":
            cuts.append(pos)
    if len(cuts) != 1 or "=" in text:
        return None
    left, right = _unwrap(text[: cuts[0]]), _unwrap(text[cuts[0] + 1 :])
    if left == var:
        return right
    return left if right == var else None


def _integer_local(name: str, fn: Function, source: SourceFile) -> bool:
    var = fn.lookup(name)
    if var is None or var.scope not in ("local", "param") or var.static:
        return False
    if var.pointers or var.dims or var.address_taken:
        return False
    if fn.declarations(name) != 1:
        return False
    return signedness(var, source.types) in ("signed", "unsigned")


def _same_type(name: str, other: str, fn: Function, source: SourceFile) -> bool:
    mine, theirs = fn.lookup(name), fn.lookup(other)
    if mine is None or theirs is None or theirs.pointers or theirs.dims:
        return False
    types = source.types
    return (types.scalar_base(mine.type) or mine.type) == (
        types.scalar_base(theirs.type) or theirs.type
    )


def _invariant(operand: str, loop: Loop, fn: Function, source: SourceFile) -> bool:
    """`e` names only integer locals, parameters and macros the loop never writes."""
    if not operand or _CALL.search(operand) or not _PLAIN.fullmatch(operand):
        return False
    written = {r.name for r in loop.refs if r.is_write}
    macros = integer_macros(source.macros)
    for name in set(_WORD.findall(operand)):
        if name == loop.var or name in written:
            return False
        if (name in macros and fn.lookup(name) is None) or name.isdigit():
            continue
        if not _integer_local(name, fn, source):
            return False
    return True


def _partners(loop: Loop, fn: Function, source: SourceFile) -> dict[str, Ref]:
    """Each local `l` the body sets once, at its top level, to `i ^ e`: its write."""
    body = loop.body
    out: dict[str, Ref] = {}
    if b"^" not in source.data[body.start_byte : body.end_byte]:
        return out  # no xor at all: the common case, at no cost
    for var in loop.locals:
        refs = [r for r in loop.refs if r.name == var.name]
        writes = [r for r in refs if r.is_write]
        if len(writes) != 1 or any(r.escapes or not is_scalar_ref(r) for r in refs):
            continue
        write = writes[0]
        if not (body.start_byte <= write.span.start_byte < body.end_byte):
            continue
        if not write.context or write.context[-1] != loop.id:
            continue  # inside a branch or an inner loop: it may not run
        if not _integer_local(var.name, fn, source) or not _same_type(
            var.name, loop.var or "", fn, source
        ):
            continue  # a narrower `l` would cut `i ^ e` short
        value = _value(write, source)
        operand = _xor_operand(value, loop.var or "") if value else None
        if operand is not None and _invariant(operand, loop, fn, source):
            out[var.name] = write
    return out


def _lower_only(ref: Ref, partner: str, var: str, facts: list[Poly]) -> bool:
    """A guard at `ref` gives `partner - var - c >= 0` with `c >= 1`."""
    gap = Poly.sym(partner) - Poly.sym(var)
    for fact in facts:
        rest = fact - gap
        if rest.is_constant and rest.constant <= -1:
            return True
    return False


def xor_pair_arrays(loop: Loop, fn: Function | None, source: SourceFile) -> set[str]:
    """Arrays the loop touches only as `a[i]`, `a[i ^ e]` under `i ^ e > i`."""
    var = loop.var
    if fn is None or var is None or loop.fortran or not loop.step:
        return set()
    if any(r.name == var and r.is_write for r in loop.refs if _in(r, loop)):
        return set()
    partners = _partners(loop, fn, source)
    branches = function_branches(fn, source) if partners else None
    if not partners or not branches:
        return set()
    groups: dict[str, list[Ref]] = {}
    for ref in loop.refs:
        if not is_scalar_ref(ref):
            groups.setdefault(ref.name, []).append(ref)
    out: set[str] = set()
    for name, refs in groups.items():
        if name in partners or not any(r.is_write for r in refs):
            continue
        used = {_subscript(r) for r in refs}
        chosen = used - {var}
        if len(chosen) != 1 or None in used:
            continue
        partner = next(iter(chosen))
        if partner not in partners or any(
            r.span.start_byte < partners[partner].span.end_byte for r in refs
        ):
            continue
        if all(
            _lower_only(r, partner or "", var, guard_facts(r, fn, source, branches))
            for r in refs
        ):
            out.add(name)
    return out


def _in(ref: Ref, loop: Loop) -> bool:
    return loop.body.start_byte <= ref.span.start_byte < loop.body.end_byte


def _subscript(ref: Ref) -> str | None:
    """The text of a reference's one plain subscript, None for any other shape."""
    if ref.deref or ref.member or ref.escapes or ref.into or len(ref.subscripts) != 1:
        return None
    sub = ref.subscripts[0]
    return None if sub.indirect else _unwrap(sub.text)
