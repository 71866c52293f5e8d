"""Whether memory a callee reads may be what the loop writes under another name.

`double *p = x;` then `p[i] = get(x, i - 1)`: the callee reads `x` through its
argument while the loop writes the same array through `p`. Comparing names
alone misses it; here each object a callee reads (through an argument, or a
global it reads) is tested against every write of the loop by the rules the
dependence test uses for two direct accesses (`pair_may_alias`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from accls.analysis.access_paths import Target, declaration, member_var, target_of
from accls.analysis.alias_pairs import pair_may_alias
from accls.analysis.call_site_apart import proved_apart
from accls.analysis.field_alias import fields_apart
from accls.analysis.field_sets import FieldSets
from accls.analysis.pointer_casts import cast_assigned
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import (
    AccessKind,
    Call,
    Function,
    Loop,
    Ref,
    SourceFile,
    Subscript,
    TypeTable,
    Var,
)

__all__ = ["read_overlap"]

# Number types that may hold an address a callee turns back into a pointer.
_ADDRESS_WORDS = frozenset({"intptr_t", "uintptr_t", "void", "FILE"})
_ANY = Subscript(text="0", poly=None)  # an element the callee picks
_LEAD = re.compile(r"[\s(]*(?:\*[\s(]*)+")  # `*(`, `**`: unary loads
_PATH = re.compile(r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*")


def _paths(arg: str) -> list[tuple[str, int]]:
    """The variable paths an argument names (`&s.d[k] + 1` gives `s.d`).

    With each, how many loads the argument applies to it: its subscripts
    (`rows[i]`: 1) and the argument's leading `*` (`*(rows + i)`: 1).
    """
    lead = _LEAD.match(arg)
    derefs = lead.group(0).count("*") if lead is not None else 0
    return [
        (" ".join(m.group(0).split()), derefs + _subscripts(arg, m.end()))
        for m in _PATH.finditer(arg)
    ]


def _subscripts(arg: str, at: int) -> int:
    """How many `[..]` follow position `at` of `arg`, brackets balanced."""
    count, depth = 0, 0
    for pos in range(at, len(arg)):
        char = arg[pos]
        if depth == 0 and char.isspace():
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            count += depth == 0
        elif depth == 0:
            break
        if depth < 0:
            return 0
    return count if depth == 0 else 0


def _reads_through(
    path: str, indexed: int, arg: str, var: Var | None, types: TypeTable
) -> list[tuple[str, int, bool]]:
    """What a callee given `arg` reads through `path`: (name, subscripts, deref).

    `norm(rows[i])` passes the value of an element: when `rows` holds pointers,
    the callee reads memory a pointer read from `rows` points to (the target of
    the loop's own `rows[i][k]`), not the storage of `rows`. And a callee given
    a table (`mean(rows, i)`, or reading a global table) may load a row from it
    and read through that: the loaded target too, whatever the table's storage.
    """
    loads = max(indexed - arg.lstrip().startswith("&"), 0)
    out = [(path, loads + 1, False) if loads else (path, 0, True)]
    levels = (var.shape + (types.levels_of(var.type) or "")) if var else ""
    row = levels.find("*", loads + 1)
    if row > 0:
        out.append((path, row + 1, False))
    return out


def _reached(
    path: str, var: Var | None, types: TypeTable, depth: int = 0
) -> list[tuple[str, bool]]:
    """The places a callee given `path` may read: (path, through it).

    A struct (`s`, `&s`, `sp`) brings its fields: its pointer fields' targets
    (`s.d` may be a copy of the array the loop writes) and its own storage,
    field by field (`s.n`, which a pointer the loop writes through may reach).
    """
    fields = types.fields_of(var.type) if var is not None and depth <= 3 else None
    if var is None or fields is None:
        return [(path, True)]
    levels = var.shape + (types.levels_of(var.type) or "")
    if levels == "":
        step, out = f"{path}.", []  # the struct's storage is its fields'
    elif levels == "*":
        step, out = f"{path}->", [(path, True)]
    elif len(levels) == 1:
        step, out = f"{path}[0].", [(path, True)]  # an array of structs
    else:
        return [(path, True)]  # deeper tables of structs: read as loaded
    for name, field in fields.items():
        if field.pointers or field.dims or types.fields_of(field.type) is not None:
            out.extend(_reached(f"{step}{name}", field, types, depth + 1))
        else:
            out.append((f"{step}{name}", False))
    return out


def _writes(loop: Loop) -> list[Ref]:
    """The loop's writes to memory a pointer may reach (not plain variables).

    An array the body declares is each iteration's own: no other iteration's
    call can reach it, and the same iteration's accesses keep their order.
    """
    own = {v.name for v in loop.locals if v.dims and not v.pointers and not v.static}
    return [
        r
        for r in loop.refs
        if r.is_write
        and not r.escapes
        and not (is_scalar_ref(r) and not (r.member and "->" in r.name))
        and re.split(r"\.|->|\[", r.name, maxsplit=1)[0].strip() not in own
    ]


def read_overlap(
    call: Call,
    reads: Iterable[str],
    loop: Loop,
    source: SourceFile,
    skip: set[str],
    fields: FieldSets | None = None,
    *,
    globals_only: bool = False,
) -> tuple[str, str] | None:
    """(read, written) for the first object `call` reads that a loop write may reach.

    `reads` are argument texts and global names the callee reads through;
    `skip` holds names that are not memory (the loop's indices, its locals).
    A write of the same base name is left to the caller, which compares it.
    `globals_only`: the names are the callee's globals, whatever the loop's
    function declares under those names.
    """
    fn: Function | None = source.function(loop.function)
    writes = _writes(loop)
    if not writes:
        return None
    macros = dict(source.macros)
    wtargets = [(w, target_of(w, fn, source.globals, source.types)) for w in writes]
    for text in reads:
        for path, indexed in _paths(text):
            base = re.split(r"\.|->", path, maxsplit=1)[0].strip()
            if base in skip or base in macros or source.function(base) is not None:
                continue
            scope = None if globals_only else fn
            decl = declaration(path, scope, source.globals)
            var = member_var(path, scope, source.globals, source.types)
            for place, deref in _reached(path, var or decl, source.types):
                if place == path and _plain(decl, var, path, source.types):
                    continue  # a number's value (`n`, `in.n`), not memory it reaches
                refs = (
                    _reads_through(path, indexed, text, var or decl, source.types)
                    if place == path
                    else [(place, 0, deref)]
                )
                for name, subscripts, through in refs:
                    ref = Ref(
                        name=name,
                        kind=AccessKind.READ,
                        span=call.span,
                        subscripts=(_ANY,) * subscripts,
                        deref=through,
                    )
                    read = target_of(ref, scope, source.globals, source.types)
                    for write, wt in wtargets:
                        wbase = re.split(r"\.|->|\[", write.name, maxsplit=1)[0]
                        if wbase.strip() == base:
                            continue  # one name: the caller's own comparison decides
                        if _may_overlap(read, wt, fn, source, fields, loop):
                            shown = text.strip() if subscripts else place
                            return shown, write.name
    return None


def _plain(decl: Var | None, var: Var | None, path: str, types: TypeTable) -> bool:
    """A variable or field holding a number: its value is passed, not memory.

    The loading of a field (`in.n`, `p->n`) is the loop's own read, at the call.
    """
    if "." in path or "->" in path:
        # A field of a known number type only: an unseen typedef may be a pointer.
        base = types.scalar_base(var.type) if var is not None else None
        if base is None or var is None or var.dims or var.pointers:
            return False
        return not set(base.split()) & _ADDRESS_WORDS
    if decl is None or decl.dims or decl.pointers:
        return False
    return not types.levels_of(decl.type)


def _may_overlap(
    a: Target,
    b: Target,
    fn: Function | None,
    source: SourceFile,
    fields: FieldSets | None,
    loop: Loop,
) -> bool:
    typed = not (cast_assigned(a.root, fn, source) or cast_assigned(b.root, fn, source))
    if not pair_may_alias(a, b, fn, source.types, typed):
        return False
    # Two parameters (or a parameter and a global) that every call of the
    # function passes distinct objects: the rule the loop's own accesses get.
    if proved_apart([(a, b)], fn, source, loop) is not None:
        return False
    return fields is None or fields_apart(a, b, fn, source, fields) is None
