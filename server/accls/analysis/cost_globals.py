"""Sizes the file fixes through constant globals: `static const int N = 4000;`.

A file-scope scalar declared `const` with a constant initialiser holds that value
for the whole run (writing it is undefined behaviour), as surely as `#define N
4000`, so the cost model counts `for (i = 0; i < N; i++)` as 4000 iterations. So
does an enumerator of the file or its headers (`enum { a, b, numberOfTimers }`: 2).
Inside a function that declares its own `N` (a parameter or a local) the global is
hidden and stays unknown there.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.cost_initialisers import folded_initialisers
from accls.frontend import Function, Poly, SourceFile, Var
from accls.frontend.exprs import expression_poly

__all__ = ["global_constants"]


def global_constants(
    source: SourceFile, fn: Function, known: Mapping[str, Poly]
) -> dict[str, Poly]:
    """The enumerators and `const` scalar globals of constant value `fn` sees."""
    hidden = {v.name for v in (*fn.params, *fn.locals)}
    out = _enumerators(source, hidden, known)
    counts: dict[str, int] = {}
    for var in source.globals:
        counts[var.name] = counts.get(var.name, 0) + 1

    def keep(var: Var) -> bool:
        plain = var.const and not (
            var.dims or var.pointers or var.volatile or var.unknown_shape
        )
        if not plain or counts[var.name] != 1:
            return False
        if var.name in hidden or var.name in known:
            return False
        # The span must name it in this file's text (not a header's declaration).
        assert var.span is not None
        named = source.data[var.span.start_byte : var.span.end_byte]
        return named == var.name.encode()

    return folded_initialisers(source, source.globals, known, keep, seed=out)


def _enumerators(
    source: SourceFile, hidden: set[str], known: Mapping[str, Poly]
) -> dict[str, Poly]:
    """The enumerators of one constant value each, in declaration order."""
    texts: dict[str, set[str]] = {}
    for name, text in source.types.enumerators:
        texts.setdefault(name, set()).add(text)
    out: dict[str, Poly] = {}
    for name, text in source.types.enumerators:
        if len(texts[name]) != 1 or name in hidden or name in known or name in out:
            continue
        value = expression_poly(text)
        value = value.substitute({**known, **out}) if value is not None else None
        if value is not None and value.is_constant:
            out[name] = value
    return out
