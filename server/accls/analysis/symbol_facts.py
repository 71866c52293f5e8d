"""Facts between a function's scalars that hold in a loop nest: `ss == 4*r + 1`.

`stencil_size = 4*radius + 1;` assigned once, at the top level of the function
(in no loop and no branch) and before the nest, with `radius` assigned only
before it, holds in every iteration of the nest: nothing can assign either
again once the statement has run. The dependence test then reads the
subscript `row*stencil_size + 4*r` with `r <= radius` as a row of
`stencil_size`. Only integer locals and parameters whose address is never
taken qualify (a callee cannot change them), in functions with no `setjmp`;
a fact fails in a nest that a `goto` may reach without running the statement
that makes it (a label between the two).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from accls.analysis.condition_forms import CAST, negated_facts
from accls.analysis.enclosing_guards import enclosing_guards
from accls.analysis.param_ranges import parameter_ranges
from accls.frontend import Function, Loop, Poly, Ref, SourceFile, is_cpp
from accls.frontend.exprs import expression_poly
from accls.frontend.fortran_form import is_fortran
from accls.frontend.nested_functions import NESTED_CALL

__all__ = ["Fact", "function_facts", "nest_facts", "scalar_holds"]

# Signed integers only: unsigned arithmetic wraps, so `4*r + 1` may be small.
_INTEGER_WORDS = frozenset({"int", "long", "short", "signed", "ptrdiff_t"})
# `(int)x`: a conversion may change the value, so the fact would not be affine.
_JUMPS = frozenset({"setjmp", "sigsetjmp", "_setjmp", "longjmp"})
_LEAVES = re.compile(
    r"(?:\b(?:exit|abort|_Exit|quick_exit)\s*\([^;]*\)|\breturn\b[^;]*)\s*;\s*\}?\s*$"
)
_SWITCH = re.compile(r"\bswitch\b")
_GOTO = re.compile(r"\bgoto\s+([A-Za-z_]\w*)\s*;")
_GOTO_WORD = re.compile(r"\bgoto\b")


def _integer(type_: str, source: SourceFile) -> bool:
    """Whether a base type is an integer type (through typedefs)."""
    base = source.types.scalar_base(type_) or type_
    words = base.split()
    return bool(words) and all(
        w in _INTEGER_WORDS or w in ("int8_t", "int16_t", "int32_t", "int64_t")
        for w in words
    )


def _plain(ref: Ref) -> bool:
    return not ref.subscripts and not ref.deref and not ref.member


def _value(ref: Ref, source: SourceFile) -> str | None:
    """The text assigned by `name = value;` (or a declaration's `= value`)."""
    data = source.data
    rest = data[ref.span.end_byte : ref.span.end_byte + 400].decode(
        "utf-8", errors="replace"
    )
    stripped = rest.lstrip()
    if not stripped.startswith("=") or stripped.startswith("=="):
        return None
    text = stripped[1:]
    depth = 0
    for pos, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0 or (depth == 0 and char in ",?"):
            return None
        if depth == 0 and char == ";":
            return text[:pos]
    return None


def _scalar(name: str, fn: Function, source: SourceFile, refs: list[Ref]) -> bool:
    """An integer local or parameter whose address is never taken."""
    var = fn.lookup(name)
    if var is None or var.scope not in ("local", "param") or var.static:
        return False
    if var.pointers or var.dims or fn.declarations(name) != 1:
        return False
    if any(r.escapes or not _plain(r) for r in refs):
        return False
    return _integer(var.type, source)


@dataclass(frozen=True, slots=True)
class Fact:
    """An affine form over scalar names, `== 0` when `equal` else `>= 0`."""

    poly: Poly
    equal: bool
    note: str  # how a reason names it: "`ss` is 4*r + 1 (line 8)"
    start: int = 0  # the byte from which it holds
    end: int = 1 << 62  # the byte before which it holds (the end of the function)
    # Loop bodies (byte ranges) where it may not hold: the next write may run
    # before anything in them on a later pass.
    around: tuple[tuple[int, int], ...] = ()
    labels: tuple[int, ...] = ()  # where `goto`s land: it fails past one of them


def function_facts(
    fn: Function | None, source: SourceFile, macros: Mapping[str, int]
) -> tuple[Fact, ...]:
    """Every fact of `fn`'s fixed scalars, each with where it starts to hold."""
    if fn is None or is_fortran(source.path):
        return ()
    if _JUMPS & set(fn.calls):
        return ()
    labels = _labels(fn, source)
    if labels is None:
        return ()
    by_name: dict[str, list[Ref]] = {}
    for ref in fn.refs:
        by_name.setdefault(ref.name, []).append(ref)

    def fixed(names: frozenset[str], at: int) -> bool:
        return all(_holds(n, at, fn, source, by_name, macros) for n in names)

    found = (
        *_assignments(fn, source, by_name, fixed),
        *_guards(fn, source, fixed),
        *enclosing_guards(fn, source, fixed, Fact),
        *_call_ranges(fn, source, macros),
    )
    return tuple(replace(f, labels=labels) for f in found) if labels else found


def _call_ranges(
    fn: Function, source: SourceFile, macros: Mapping[str, int]
) -> list[Fact]:
    """`lo <= p <= hi` of each parameter every call of `fn` keeps in a range."""
    out = []
    for name, low, high in parameter_ranges(fn, source, macros):
        note = f"every call passes `{name}` in [{low}, {high}]"
        span = (fn.span.start_byte, fn.span.end_byte)
        out.append(Fact(Poly.sym(name) - Poly.const(low), False, note, *span))
        out.append(Fact(Poly.const(high) - Poly.sym(name), False, note, *span))
    return out


def _labels(fn: Function, source: SourceFile) -> tuple[int, ...] | None:
    """Where the targets of `fn`'s `goto`s are (bytes); None when not all are found.

    A fact holds in code no jump lands in between where it starts and the nest:
    control then reaches the nest only through the statement that makes it.
    """
    body = source.text[fn.span.start_byte : fn.span.end_byte]
    if "goto" not in body:
        return ()
    targets = _GOTO.findall(body)
    if len(source.data) != len(source.text):
        return None  # byte offsets are not character offsets
    if len(targets) != len(_GOTO_WORD.findall(body)):
        return None  # `goto *p;`, or a word we cannot read
    out: list[int] = []
    for name in set(targets):
        # Every `name :` counts (a `?:` arm too): more places only refuse more.
        found = [m.start() for m in re.finditer(rf"(?<![\w:]){name}\s*:(?!:)", body)]
        if not found:
            return None
        out.extend(fn.span.start_byte + at for at in found)
    return tuple(sorted(out))


def nest_facts(facts: tuple[Fact, ...], nest: Loop) -> tuple[Fact, ...]:
    """The facts that hold in `nest` and reach a name it reads (or through others)."""
    found = [
        f
        for f in facts
        if f.start <= nest.span.start_byte and nest.span.end_byte <= f.end
        if not any(a <= nest.span.start_byte < b for a, b in f.around)
        if not any(f.start <= at < nest.span.end_byte for at in f.labels)
    ]
    if not found:
        return ()
    reached = {r.name for r in nest.refs}
    out: list[Fact] = []
    changed = True
    while changed:
        changed = False
        for fact in found:
            if fact not in out and fact.poly.names() & reached:
                out.append(fact)
                reached |= fact.poly.names()
                changed = True
    return tuple(out)


def _assignments(
    fn: Function,
    source: SourceFile,
    by_name: Mapping[str, list[Ref]],
    fixed: Callable[[frozenset[str], int], bool],
) -> list[Fact]:
    """`v == value` of each assignment at the top level of `fn`, until the next write.

    An assignment in no loop and no branch runs on every path to what follows
    it (`fn` has no `goto`); its value holds until the next write of `v`, in
    code that no loop runs again (a loop body after it may run the next write
    before a later pass).
    """
    out: list[Fact] = []
    nested = any(c.startswith(NESTED_CALL) for c in fn.calls)
    for name, refs in sorted(by_name.items()):
        writes = sorted(
            (r for r in refs if r.is_write), key=lambda r: r.span.start_byte
        )
        if not writes or not _scalar(name, fn, source, refs):
            continue
        if len(writes) > 1 and (is_cpp(source.path) or nested):
            # A lambda's or a GNU nested function's write looks top-level (or is
            # recorded where the function is defined), and runs when it is called.
            continue
        for at, write in enumerate(writes):
            after = writes[at + 1] if at + 1 < len(writes) else None
            out.extend(_assignment(name, write, after, fn, source, fixed))
    return out


def _assignment(
    name: str,
    write: Ref,
    after: Ref | None,
    fn: Function,
    source: SourceFile,
    fixed: Callable[[frozenset[str], int], bool],
) -> list[Fact]:
    """The fact of one top-level assignment, holding up to the next write `after`."""
    out: list[Fact] = []
    if write.context or write.loops or write.guarded or write.is_read:
        return out  # in a loop or a branch, or `v += k`
    end = 1 << 62
    around: tuple[tuple[int, int], ...] = ()
    if after is not None:
        # In a loop body after `write`, a later pass may follow the next write.
        end = after.span.start_byte
        around = tuple(
            (b.span.start_byte, b.span.end_byte)
            for b in source.branches
            if b.kind == "loop"
            and write.span.end_byte <= b.span.start_byte < fn.span.end_byte
        )
    text = _value(write, source)
    if text is None or CAST.search(text):
        return out
    value = expression_poly(text)
    if value is None or any(len(m) > 1 for m, _ in value.terms):
        return out
    if name not in value.names() and fixed(value.names(), write.span.start_byte):
        note = f"`{name}` is {' '.join(text.split())} (line {write.span.line})"
        poly = Poly.sym(name) - value
        out.append(Fact(poly, True, note, write.span.end_byte, end, around))
    return out


def _leaves(arm: str) -> bool:
    """Whether the last statement of an `if` arm leaves the function."""
    return _LEAVES.search(arm) is not None


def _guards(
    fn: Function,
    source: SourceFile,
    fixed: Callable[[frozenset[str], int], bool],
) -> list[Fact]:
    """`!(cond)` of each top-level `if (cond) { ...; exit(1); }` of `fn`."""
    if len(source.data) != len(source.text):
        return []  # byte offsets are not character offsets
    mine = sorted(
        (
            b
            for b in source.branches
            if fn.span.start_byte <= b.span.start_byte < fn.span.end_byte
        ),
        key=lambda b: b.span.start_byte,
    )
    body = source.text[fn.span.start_byte : fn.span.end_byte]
    switch = _SWITCH.search(body)
    # An `if` in a `case` holds on that path only.
    stop = fn.span.start_byte + switch.start() if switch else fn.span.end_byte
    out: list[Fact] = []
    reach = -1  # the furthest end of the branches before
    for at, branch in enumerate(mine):
        nested = reach > branch.span.start_byte
        reach = max(reach, branch.span.end_byte)
        after = mine[at + 1] if at + 1 < len(mine) else None
        holds = after is not None and after.span.start_byte < branch.span.end_byte
        if branch.kind != "if" or nested or holds or branch.span.start_byte > stop:
            continue  # nested, or holding branches that may not leave
        arm = source.text[branch.span.start_byte : branch.span.end_byte]
        if not _leaves(arm):
            continue
        forms = negated_facts(branch.condition)
        names = frozenset(n for f in forms for n in f[0].names())
        if forms and fixed(names, branch.span.start_byte):
            shown = " ".join(branch.condition.split())
            line = branch.span.line
            note = f"not {shown}: that case leaves the function (line {line})"
            end_ = branch.span.end_byte
            out.extend(Fact(poly, equal, note, end_) for poly, equal in forms)
    return out


def scalar_holds(
    name: str, at: int, fn: Function, source: SourceFile, macros: Mapping[str, int]
) -> bool:
    """Whether `name` keeps its value from byte `at` on (see `_holds`)."""
    refs = [r for r in fn.refs if r.name == name]
    return _holds(name, at, fn, source, {name: refs}, macros)


def _holds(
    name: str,
    at: int,
    fn: Function,
    source: SourceFile,
    by_name: Mapping[str, list[Ref]],
    macros: Mapping[str, int],
) -> bool:
    """Whether `name` keeps its value from byte `at` on (all its writes before)."""
    if name in macros and fn.lookup(name) is None:
        return True
    refs = by_name.get(name, [])
    if not _scalar(name, fn, source, refs):
        return False
    return all(r.span.end_byte <= at for r in refs if r.is_write)
