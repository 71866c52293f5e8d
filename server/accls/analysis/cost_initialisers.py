"""Folds the initialisers of scalars to constants: `int diameter = radius * 2 - 1;`.

Both the `const` globals a function sees (cost_globals) and its own written-once
locals (cost_locals) fix a loop's size through the text after their declaration;
each decides which variables qualify, this module reads and folds the values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from accls.frontend import Poly, SourceFile, Var
from accls.frontend.exprs import expression_poly

__all__ = ["constant_macros", "folded_initialisers"]

_INIT = re.compile(rb"\s*=\s*([^,;{}]+)[,;]")


def folded_initialisers(
    source: SourceFile,
    variables: Iterable[Var],
    known: Mapping[str, Poly],
    keep: Callable[[Var], bool],
    seed: Mapping[str, Poly] | None = None,
) -> dict[str, Poly]:
    """`seed` plus each kept variable whose initialiser folds to a constant.

    Variables are read in declaration order, so a later initialiser may use an
    earlier one's value; a name already folded keeps its first value.
    """
    out = dict(seed or {})
    for var in sorted(variables, key=lambda v: v.span.start_byte if v.span else 0):
        if var.span is None or var.name in out or not keep(var):
            continue
        found = _INIT.match(source.data, var.span.end_byte)
        if found is None:
            continue
        value = expression_poly(found.group(1).decode("utf-8", errors="replace"))
        if value is None:
            continue
        value = value.substitute({**known, **out})
        if value.is_constant:
            out[var.name] = value
    return out


def constant_macros(source: SourceFile) -> dict[str, Poly]:
    """Object-like macros whose value is an integer constant."""
    out: dict[str, Poly] = {}
    for name, text in source.macros:
        value = expression_poly(text)
        if value is not None and value.is_constant:
            out[name] = value
    return out
