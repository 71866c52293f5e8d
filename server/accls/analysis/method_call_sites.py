"""Every call of a C++ method, when its class lives in the analysed source file.

`void spmv(const std::vector<double> &x, std::vector<double> &y) const`,
defined in a class of `main.cpp`, is a function no other translation unit can
call: another file would have to define the same class again. Its calls are
the file's calls named `CLASS::spmv` (the object first, as `this`), provided
the name appears nowhere else: no call through a template parameter
(`t.spmv(..)`, which the front end cannot resolve), no `&CLASS::spmv`, no
other class's method of that name, no macro, comment or skipped branch. A
header's class, or a method defined outside its class, gives None.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePath

from accls.frontend import Call, Function, SourceFile

__all__ = ["method_calls"]

_SOURCES = frozenset({".cpp", ".cc", ".cxx", ".c++", ".C"})


def method_calls(
    name: str, source: SourceFile, hidden: frozenset[str]
) -> list[tuple[Function, Call]] | None:
    """The (caller, call) of each call of method `name` (`CLASS::m`), else None.

    `hidden` holds the names a skipped `#if` branch or a spliced token may use.
    """
    cls, _, method = name.rpartition("::")
    if not cls or "::" in cls or not re.fullmatch(r"[A-Za-z_]\w*", method):
        return None
    if not source.path or PurePath(source.path).suffix not in _SOURCES:
        return None  # a header (or a buffer): other files may call it
    defined = [f for f in source.functions if f.name == name]
    if len(defined) != 1 or not defined[0].in_class or method in hidden:
        return None
    word = re.compile(rf"\b{re.escape(method)}\b")
    texts = [r for _, r in source.macros] + [r for _, _, r in source.function_macros]
    if source.headers is not None:
        texts.append(source.headers.code)
    if any(word.search(text) for text in texts):
        return None
    calls = [
        (caller, call)
        for caller in source.functions
        for call in caller.call_sites
        if call.name == name
    ]
    spans = [(c.span.start_byte, c.span.end_byte) for _, c in calls]
    own = defined[0].span
    declared = False
    data = source.data
    code = source.code.encode("utf-8", errors="surrogateescape")
    for match in re.finditer(rf"\b{re.escape(method)}\b".encode(), code):
        at = match.start()
        if any(start <= at < end for start, end in spans):
            continue
        if not declared and own.start_byte <= at < own.end_byte:
            declared = True  # the definition's own name
            continue
        return None  # a use no call of the file's stands for
    if len(code) != len(data) or not calls:
        return None
    if defined[0].static:
        return calls  # `o.f(a)` of a static `f` passes `a` alone
    return [(caller, _addressed(call, data)) for caller, call in calls]


def _addressed(call: Call, data: bytes) -> Call:
    """The call with `o` of `o.m(..)` passed as `&o`: `this` points to the object.

    `p->m(..)` passes the pointer `p` as it is, and a call inside a method
    (`m(..)`, `this->m(..)`) passes `this`.
    """
    if not call.args:
        return call
    text = data[call.span.start_byte : call.span.end_byte].decode("utf-8", "replace")
    obj = call.args[0]
    rest = "".join(text.split())
    if rest.startswith(obj) and rest[len(obj) :].startswith("."):
        return replace(call, args=(f"&{obj}", *call.args[1:]))
    return call
