"""What the program proves about its scalars where a loop's data clause runs.

`a[1:n - 2]` is a negative length unless `n >= 2`; `section_length` clamps it
unless these facts prove it. Each fact is a form `>= 0` that holds on every path
to the nest, from the start of its first loop to its end:

- the function's fixed-scalar facts (`symbol_facts`): `if (n < 3) return;`
  before it, `const int m = 100;` at its top level;
- the condition of each `if` whose then arm holds the nest (`if (n > 2) {...}`),
  when nothing writes its names from there on;
- `assert(n >= 3);` before the nest, in a block that holds it, when the file
  does not define NDEBUG;
- `double t[n];` in scope (a variable-length array is at least one element);
- `const int NX = 64;` at file scope, unshadowed (a constant like a macro).

A loop's own bounds prove nothing: `for (i = 1; i < n - 1; i++)` may run zero
times at `n = 0`, while its clause `a[1:n - 2]` is still evaluated.
"""

from __future__ import annotations

import re

from accls.analysis.analyze import FileAnalysis
from accls.analysis.condition_forms import condition_facts
from accls.analysis.nest_views import integer_macros
from accls.analysis.symbol_facts import function_facts, nest_facts, scalar_holds
from accls.frontend import Function, Loop, Poly, SourceFile, is_cpp
from accls.frontend.exprs import expression_poly
from accls.frontend.fortran_form import is_fortran
from accls.frontend.nested_functions import NESTED_CALL

__all__ = ["section_guards"]

_ASSERT = re.compile(r"(?<![\w.>])assert\s*\(")
_INITIAL = re.compile(r"\s*=\s*\(?\s*(\d+)[uUlL]*\s*\)?\s*[,;]")
_INTEGERS = frozenset({"int", "long", "short", "signed", "unsigned", "char", "size_t"})
_UNSAFE = re.compile(r"\b(?:goto|switch|setjmp|sigsetjmp|_setjmp|longjmp)\b")


def section_guards(loop: Loop, analysis: FileAnalysis) -> tuple[Poly, ...]:
    """Forms `>= 0` that hold wherever `loop`'s nest runs (computed once per nest)."""
    source = analysis.source
    nest = next(
        (
            n
            for n in source.nests
            if n.span.start_byte <= loop.span.start_byte
            and loop.span.end_byte <= n.span.end_byte
        ),
        None,
    )
    fn = source.function(loop.function)
    if nest is None or fn is None or is_fortran(source.path):
        return ()
    key = ("section_guards", nest.id)
    cached = analysis.shared.get(key)
    if isinstance(cached, tuple):
        return cached
    macros = integer_macros(source.macros)
    facts_key = ("function_facts", fn.name)
    facts = analysis.shared.get(facts_key)
    if not isinstance(facts, tuple):
        facts = function_facts(fn, source, macros)
        analysis.shared[facts_key] = facts
    found: list[Poly] = []
    for fact in nest_facts(facts, nest):
        found.append(fact.poly)
        if fact.equal:
            found.append(-fact.poly)
    body = source.text[fn.span.start_byte : fn.span.end_byte]
    if len(source.data) == len(source.text) and not _UNSAFE.search(body):
        # No jump lands past a guard into the code it guards.
        found.extend(_enclosing(nest, fn, source, macros))
        if "NDEBUG" not in dict(source.macros):
            found.extend(_asserts(nest, fn, source, macros, body))
    found.extend(_vlas(nest, fn, macros, source))
    found.extend(_const_globals(fn, source))
    out = tuple(found)
    analysis.shared[key] = out
    return out


def _fixed(
    names: frozenset[str],
    at: int,
    fn: Function,
    source: SourceFile,
    macros: dict[str, int],
) -> bool:
    """Whether every name keeps its value from byte `at` on.

    In C++, or beside a nested function, a name written anywhere may be
    written by a lambda's call: refused.
    """
    wary = is_cpp(source.path) or any(c.startswith(NESTED_CALL) for c in fn.calls)
    for name in names:
        if not scalar_holds(name, at, fn, source, macros):
            return False
        if wary and any(r.is_write and r.name == name for r in fn.refs):
            return False
    return True


def _forms(found: list[tuple[Poly, bool]]) -> list[Poly]:
    out: list[Poly] = []
    for poly, equal in found:
        out.append(poly)
        if equal:
            out.append(-poly)
    return out


def _enclosing(
    nest: Loop, fn: Function, source: SourceFile, macros: dict[str, int]
) -> list[Poly]:
    """The conditions of the `if`s whose then arm holds the nest."""
    out: list[Poly] = []
    for branch in source.branches:
        if branch.kind != "if" or not (
            fn.span.start_byte <= branch.span.start_byte <= nest.span.start_byte
            and nest.span.end_byte <= branch.span.end_byte
        ):
            continue
        found = condition_facts(branch.condition)
        names = frozenset(n for poly, _ in found for n in poly.names())
        # From the condition on: it is written before the arm.
        start = branch.span.start_byte - len(branch.condition) - 8
        if found and _fixed(names, start, fn, source, macros):
            out.extend(_forms(found))
    return out


def _asserts(
    nest: Loop, fn: Function, source: SourceFile, macros: dict[str, int], body: str
) -> list[Poly]:
    """`assert(cond)` statements that run before the nest on every path to it."""
    out: list[Poly] = []
    base = fn.span.start_byte
    for match in _ASSERT.finditer(body):
        at = base + match.start()
        if at >= nest.span.start_byte:
            break
        depth, end = 0, -1
        for pos in range(match.end() - 1, len(body)):
            depth += {"(": 1, ")": -1}.get(body[pos], 0)
            if depth == 0:
                end = pos
                break
        if end < 0 or not body[end + 1 :].lstrip().startswith(";"):
            continue
        if any(
            b.span.start_byte <= at < b.span.end_byte
            and not (
                b.span.start_byte <= nest.span.start_byte
                and nest.span.end_byte <= b.span.end_byte
            )
            for b in source.branches
        ):
            continue  # on some paths only
        found = condition_facts(body[match.end() : end])
        names = frozenset(n for poly, _ in found for n in poly.names())
        if found and _fixed(names, at, fn, source, macros):
            out.extend(_forms(found))
    return out


def _vlas(
    nest: Loop, fn: Function, macros: dict[str, int], source: SourceFile
) -> list[Poly]:
    """`n - 1 >= 0` for each `double t[n]` in scope: a VLA has an element."""
    out: list[Poly] = []
    if is_cpp(source.path):
        return out
    for var in fn.locals:
        if var.span is None or var.static or var.scope_end < 0 or var.pointers:
            continue  # a pointer to rows of `n` allocates nothing
        if "*" in var.levels:
            continue
        if not (
            var.span.end_byte <= nest.span.start_byte
            and nest.span.end_byte <= var.scope_end
        ):
            continue
        for dim in var.dims:
            poly = expression_poly(dim) if dim else None
            if poly is None or poly.is_constant or not poly.is_affine:
                continue
            if _fixed(poly.names(), var.span.start_byte, fn, source, macros):
                out.append(poly - Poly.const(1))
    return out


def _const_globals(fn: Function, source: SourceFile) -> list[Poly]:
    """`NX == 64` for each `const int NX = 64;` at file scope `fn` does not shadow."""
    out: list[Poly] = []
    if len(source.data) != len(source.text):
        return out  # byte offsets are not character offsets
    for var in source.globals:
        if not var.const or var.pointers or var.dims or var.span is None:
            continue
        base = source.types.scalar_base(var.type) or var.type
        if not set(base.split()) <= _INTEGERS or fn.lookup(var.name) is not None:
            continue
        after = source.text[var.span.end_byte : var.span.end_byte + 80]
        found = _INITIAL.match(after)
        if found is not None:
            fact = Poly.sym(var.name) - Poly.const(int(found.group(1)))
            out.extend((fact, -fact))
    return out
