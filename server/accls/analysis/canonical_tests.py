"""What a loop test that OpenMP does not accept would be in canonical form.

OpenMP (and gcc) take only `v op ub` or `ub op v` as a `for` loop's test:
`i + 1 < n` is "an invalid controlling predicate", and a pragma on it does not
compile. The loop is refused as written; the reason names the same test with
the offset moved to the bound (`i < n - 1`), which the user may write. The
two are the same test only while `n - 1` does not overflow, which the user,
not this module, knows: it only names the rewrite.
"""

from __future__ import annotations

import re

from accls.analysis.nest_views import integer_macros
from accls.frontend import Loop, SourceFile

__all__ = ["shape_message"]

_SHAPE = (
    "the loop is not in canonical form "
    "(`for (v = lb; v < ub; v += step)` with a constant step)"
)
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NUMBER = r"\d+"
_SIGNED = frozenset({"int", "long", "long int", "long long", "short", "ptrdiff_t"})


def _test(loop: Loop, source: SourceFile) -> str:
    """The condition of the loop's `for (init; test; step)` header, or ""."""
    header = source.data[loop.header.start_byte : loop.header.end_byte]
    parts = header.decode("utf-8", errors="replace").split(";")
    return " ".join(parts[1].split()) if len(parts) == 3 else ""


def _moved(var: str, test: str) -> str:
    """`i + 1 < n` as `i < n - 1` (`n > i + 1` too), or "" for another form."""
    term = rf"{re.escape(var)}\s*([+-])\s*({_NUMBER})"
    found = re.fullmatch(rf"{term}\s*(<=?|>=?)\s*([^<>=!&|?]+)", test)
    if found is not None:
        sign, number, op, bound = found.groups()
    else:
        found = re.fullmatch(rf"([^<>=!&|?]+?)\s*(<=?|>=?)\s*{term}", test)
        if found is None:
            return ""
        bound, op, sign, number = found.groups()
        op = _FLIP[op]
    back = "-" if sign == "+" else "+"
    return f"{var} {op} {bound.strip()} {back} {number}"


def _signed(name: str, loop: Loop, source: SourceFile) -> bool:
    """Whether `name` is a number, a macro of one, or a signed integer variable.

    With an unsigned one, `n - 1` wraps at `n == 0` where `i + 1 < n` does not.
    """
    if name.isdigit():
        return True
    if integer_macros(source.macros).get(name, 0) >= 1:
        return True  # a constant past 0: `N - 1` does not wrap, whatever its type
    fn = source.function(loop.function)
    var = fn.lookup(name) if fn is not None else None
    var = var or next((g for g in source.globals if g.name == name), None)
    if var is None or var.pointers or var.dims:
        return False
    base = source.types.scalar_base(var.type) or var.type
    return base in _SIGNED


def shape_message(loop: Loop, source: SourceFile) -> str:
    """Why the loop's shape is not canonical, with the canonical test if one fits."""
    test = _test(loop, source)
    constant = loop.step is not None
    moved = _moved(loop.var, test) if loop.var and test and constant else ""
    bound = moved.split(" ", 2)[2].rsplit(" ", 2)[0] if moved else ""
    names = (loop.var or "", bound)
    if not moved or not all(_signed(n, loop, source) for n in names):
        return _SHAPE
    return (
        f"the loop test `{test}` is not in OpenMP's canonical form `v < ub` "
        f"(gcc rejects a pragma on it); written `{moved}`, it is"
    )
