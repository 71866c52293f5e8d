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

from accls.analysis.access_paths import Target, declaration, target_of
from accls.analysis.alias_pairs import pair_may_alias
from accls.analysis.field_alias import fields_apart
from accls.analysis.field_sets import FieldSets
from accls.analysis.pointer_casts import cast_assigned
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import AccessKind, Call, Function, Loop, Ref, SourceFile

__all__ = ["read_overlap"]

_PATH = re.compile(r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*")


def _paths(arg: str) -> list[str]:
    """The variable paths an argument names (`&s.d[k] + 1` gives `s.d`)."""
    return [" ".join(m.group(0).split()) for m in _PATH.finditer(arg)]


def _writes(loop: Loop) -> list[Ref]:
    """The loop's writes to memory a pointer may reach (not plain variables)."""
    return [
        r
        for r in loop.refs
        if r.is_write
        and not r.escapes
        and not (is_scalar_ref(r) and not (r.member and "->" in r.name))
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
        for path in _paths(text):
            base = re.split(r"\.|->", path, maxsplit=1)[0].strip()
            if base in skip or base in macros or source.function(base) is not None:
                continue
            scope = None if globals_only else fn
            decl = declaration(path, scope, source.globals)
            plain = decl is not None and not decl.dims and not decl.pointers
            if plain and "." not in path and "->" not in path:
                continue  # a plain variable's value, not memory it reaches
            ref = Ref(name=path, kind=AccessKind.READ, span=call.span, deref=True)
            read = target_of(ref, scope, source.globals, source.types)
            for write, wt in wtargets:
                wbase = re.split(r"\.|->|\[", write.name, maxsplit=1)[0].strip()
                if wbase == base:
                    continue  # one name: the caller's own comparison decides
                if _may_overlap(read, wt, fn, source, fields):
                    return path, write.name
    return None


def _may_overlap(
    a: Target,
    b: Target,
    fn: Function | None,
    source: SourceFile,
    fields: FieldSets | None,
) -> bool:
    typed = not (cast_assigned(a.root, fn, source) or cast_assigned(b.root, fn, source))
    if not pair_may_alias(a, b, fn, source.types, typed):
        return False
    return fields is None or fields_apart(a, b, fn, source, fields) is None
