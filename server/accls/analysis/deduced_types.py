"""The type of a scalar declared `auto` or `typeof(..)`: what the declaration names.

C++ `auto u = 0.0f;` declares a `float`, but the declaration parse keeps no
deduced type (it reads the declaration as an `int`), so a check that asks
whether a total is single precision, or wider than eight bytes, must look at
the initializer itself. A literal says its type by its form and suffix; any
other initializer leaves the type unknown ("auto"), which those checks take
as possibly narrow. In C, `auto` is a storage class (`auto float s`), and the
parse's type stands; GNU C's `__auto_type` deduces. `typeof(xf[0])` names the
element type of `xf`, which the declaration's text does not show.
"""

from __future__ import annotations

import re

from accls.analysis.reduction_refusals import scalar_decl
from accls.frontend import Function, SourceFile, Var, is_cpp

__all__ = ["AUTO", "declared_scalar"]

AUTO = "auto"  # deduced from an initializer accls cannot type
# The declaration's text before the name: from the previous statement's end.
_HEAD = re.compile(r"[^;{}()]*$")
_SPECIFIERS = frozenset({"const", "constexpr", "static", "thread_local", "volatile"})
_TYPEOF = re.compile(
    r"^(?:typeof|__typeof__|__typeof|typeof_unqual|decltype)\s*\((?P<arg>.*)\)$"
)
_SCALAR_WORDS = frozenset(
    "char short int long float double signed unsigned _Float16 __float128".split()
)
_INIT = re.compile(
    r"^\s*(?:=\s*|\{\s*|=\s*\{\s*)[-+]?"
    r"(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+)"
    r"(?P<suffix>[a-zA-Z]*)\s*\}?\s*[;,]"
)


def declared_scalar(var: Var, source: SourceFile, fn: Function | None = None) -> str:
    """`var`'s type as declared; for `auto`, the type its literal initializer has.

    `typeof(x[0])` (GNU C, C23) and `decltype(x)` are the type of the name they
    name, looked up in `fn`; `__auto_type` is deduced as `auto` is.
    """
    if var.pointers or var.dims:
        return var.type
    named = _TYPEOF.match(var.type.strip())
    if named is not None:
        return _type_of(named.group("arg").strip(), fn, source)
    if var.type != "__auto_type" and not is_cpp(source.path):
        return var.type  # C's `auto` is a storage class: `auto float s` is a float
    if var.span is None:
        return AUTO if var.type == "__auto_type" else var.type
    data = source.text.encode()
    before = data[max(0, var.span.start_byte - 200) : var.span.start_byte]
    head = _HEAD.search(before.decode(errors="replace"))
    words = re.findall(r"[A-Za-z_]\w*", head.group(0)) if head is not None else []
    if var.type != "__auto_type" and [w for w in words if w not in _SPECIFIERS] != [
        "auto"
    ]:
        return var.type
    after = data[var.span.end_byte : var.span.end_byte + 120].decode(errors="replace")
    found = _INIT.match(after)
    if found is None:
        return AUTO
    return _literal(found.group("num"), found.group("suffix").lower())


def _type_of(arg: str, fn: Function | None, source: SourceFile) -> str:
    """The scalar type of `typeof(arg)`: a type name, or a variable (subscripted)."""
    found = re.fullmatch(r"([A-Za-z_]\w*)((?:\s*\[[^\[\]]*\])*)", arg)
    if found is None:
        known = set(arg.split()) <= _SCALAR_WORDS
        return arg if known else AUTO  # `typeof(float)`, or an expression
    var = scalar_decl(found.group(1), fn, source)
    if var is None:
        return arg if source.types.scalar_base(arg) or arg in _SCALAR_WORDS else AUTO
    if found.group(2).count("[") != len(var.dims) + var.pointers:
        return AUTO  # a row, or a pointer: no scalar total
    return var.type


def _literal(num: str, suffix: str) -> str:
    floating = not num.lower().startswith("0x") and bool(re.search(r"[.eE]", num))
    if floating:
        return {"": "double", "f": "float", "l": "long double"}.get(suffix, AUTO)
    longs = suffix.count("l")
    unsigned = "unsigned " if "u" in suffix else ""
    if suffix.replace("l", "").replace("u", ""):
        return AUTO  # a user-defined literal or `z`: not a plain type
    return unsigned + ("long " * longs + "int" if longs else "int")
