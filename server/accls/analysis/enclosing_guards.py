"""Facts of the `if` a nest sits in: `if (k <= m) { ... a[i*m + j], j < k ... }`.

The then arm runs only when its condition held, and the condition's names
keep their values from there on when every write of them comes before the arm
(symbol_facts' `fixed`: integer locals and parameters whose address is never
taken). Each comparison of an `&&` is then a fact in every nest of the arm. A
`case` or `default` label in the arm lets a `switch` enter it without the test,
so such an arm gives none; a `goto` into it is symbol_facts' labels' concern.
In C++ (lambdas) and with GNU nested functions, only names never written count.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from accls.analysis.condition_forms import condition_facts
from accls.analysis.field_paths import balanced
from accls.frontend import Function, SourceFile, is_cpp
from accls.frontend.nested_functions import NESTED_CALL

if TYPE_CHECKING:
    from accls.analysis.symbol_facts import Fact

__all__ = ["enclosing_guards"]

_CASE = re.compile(r"\b(?:case|default)\b")


def enclosing_guards(
    fn: Function,
    source: SourceFile,
    fixed: Callable[[frozenset[str], int], bool],
    make: Callable[..., Fact],
) -> list[Fact]:
    """The facts each `if` arm of `fn` gives the code inside it."""
    if len(source.data) != len(source.text):
        return []  # byte offsets are not character offsets
    # A C++ lambda's or a GNU nested function's write sits before the arm in
    # the text and runs when it is called, inside it: then only names the
    # function never writes count.
    late = is_cpp(source.path) or any(c.startswith(NESTED_CALL) for c in fn.calls)
    out: list[Fact] = []
    for branch in source.branches:
        start, end = branch.span.start_byte, branch.span.end_byte
        if branch.kind != "if" or not fn.span.start_byte <= start < fn.span.end_byte:
            continue
        if _CASE.search(source.text[start:end]):
            continue
        forms = condition_facts(branch.condition)
        names = frozenset(n for poly, _ in forms for n in poly.names())
        if not forms or not fixed(names, fn.span.start_byte if late else start):
            continue
        shown = " ".join(branch.condition.split())
        if shown.startswith("(") and shown.endswith(")") and balanced(shown[1:-1]):
            shown = shown[1:-1]
        note = f"inside `if ({shown})` (line {branch.span.line})"
        out.extend(make(poly, equal, note, start, end) for poly, equal in forms)
    return out
