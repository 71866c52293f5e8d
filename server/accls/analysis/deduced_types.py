"""The type of a C++ scalar declared `auto`: deduced from a literal initializer.

C++ `auto u = 0.0f;` declares a `float`, but the declaration parse keeps no
deduced type (it reads the declaration as an `int`), so a check that asks
whether a total is single precision, or wider than eight bytes, must look at
the initializer itself. A literal says its type by its form and suffix; any
other initializer leaves the type unknown ("auto"), which those checks take
as possibly narrow. In C, `auto` is a storage class (`auto float s`), and the
parse's type stands.
"""

from __future__ import annotations

import re

from accls.frontend import SourceFile, Var, is_cpp

__all__ = ["AUTO", "declared_scalar"]

AUTO = "auto"  # deduced from an initializer accls cannot type
# The declaration's text before the name: from the previous statement's end.
_HEAD = re.compile(r"[^;{}()]*$")
_SPECIFIERS = frozenset({"const", "constexpr", "static", "thread_local", "volatile"})
_INIT = re.compile(
    r"^\s*(?:=\s*|\{\s*|=\s*\{\s*)[-+]?"
    r"(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+)"
    r"(?P<suffix>[a-zA-Z]*)\s*\}?\s*[;,]"
)


def declared_scalar(var: Var, source: SourceFile) -> str:
    """`var`'s type as declared; for `auto`, the type its literal initializer has."""
    if var.span is None or var.pointers or var.dims or not is_cpp(source.path):
        return var.type  # C's `auto` is a storage class: `auto float s` is a float
    data = source.text.encode()
    before = data[max(0, var.span.start_byte - 200) : var.span.start_byte]
    head = _HEAD.search(before.decode(errors="replace"))
    words = re.findall(r"[A-Za-z_]\w*", head.group(0)) if head is not None else []
    if [w for w in words if w not in _SPECIFIERS] != ["auto"]:
        return var.type
    after = data[var.span.end_byte : var.span.end_byte + 120].decode(errors="replace")
    found = _INIT.match(after)
    if found is None:
        return AUTO
    return _literal(found.group("num"), found.group("suffix").lower())


def _literal(num: str, suffix: str) -> str:
    floating = not num.lower().startswith("0x") and bool(re.search(r"[.eE]", num))
    if floating:
        return {"": "double", "f": "float", "l": "long double"}.get(suffix, AUTO)
    longs = suffix.count("l")
    unsigned = "unsigned " if "u" in suffix else ""
    if suffix.replace("l", "").replace("u", ""):
        return AUTO  # a user-defined literal or `z`: not a plain type
    return unsigned + ("long " * longs + "int" if longs else "int")
