"""Which of a name's several definitions a call runs: C++ overloads by argument count.

`CalcElemVolume(x, y, z)` and `CalcElemVolume(x0, .., z7)` share a name; a
call passing three arguments can only be the first. A call is resolved when
exactly one definition accepts its number of arguments (defaults and `...`
counted); otherwise every definition stays possible (their summaries' union).
Defaults a prototype gives are unseen in the definition: a definition is ruled
out for too few arguments only when it is `static` and no `name(..)` of the
file holds a `=`, or when it is a method defined in its class (its only
declaration).
"""

from __future__ import annotations

import re

from accls.analysis.overload_types import unseen_overload
from accls.frontend import Function, SourceFile

__all__ = ["called_definition", "definitions", "takes"]


def definitions(name: str, source: SourceFile) -> tuple[Function, ...]:
    """Every definition of `name` in the file."""
    return tuple(f for f in source.functions if f.name == name)


_DEFAULT = re.compile(r"(?<![=!<>])=(?!=)")


def _defaults_declared(name: str, source: SourceFile) -> bool:
    """Whether some `name(..)` of the file or its headers' code holds a `=`.

    A prototype may give a definition's parameters defaults: then a call may
    pass fewer arguments than the definition lists.
    """
    plain = name.rsplit("::", 1)[-1]
    texts = [source.code, source.headers.code if source.headers else ""]
    for text in texts:
        for match in re.finditer(rf"\b{re.escape(plain)}\s*\(", text):
            depth, start = 0, match.end() - 1
            for end in range(start, min(len(text), start + 4000)):
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                if depth == 0:
                    break
            if _DEFAULT.search(text, start, end):
                return True
    return False


def _accepts(fn: Function, count: int, hidden: bool) -> bool:
    """Whether a call of `count` arguments may run `fn`.

    Too many arguments rule a definition out; too few only when it is `static`
    (its declarations are in this file) and no declaration gives defaults.
    """
    if fn.max_args is not None and count > fn.max_args:
        return False
    if (fn.in_class or fn.class_declared) and (count > 0 or not _constructs(fn.name)):
        # A method defined in its class, or outside the file's class: no
        # prototype adds defaults. A call of a constructor passes the new object
        # first; one passing nothing is a copy or a destructor the walk names
        # without its object.
        return count >= fn.min_args
    return count >= fn.min_args or not fn.static or hidden


def _constructs(name: str) -> bool:
    """A constructor or destructor: its calls pass no `this` among their arguments."""
    head, _, plain = name.rpartition("::")
    return plain.startswith("~") or plain == head.rsplit("::", 1)[-1]


def takes(fn: Function, count: int | None, source: SourceFile) -> bool:
    """Whether a call of `count` arguments may run `fn` (the file's one `fn.name`).

    A call the only definition cannot take runs an overload the file lacks, and
    so may one a prototype or header declares with other parameter types.
    """
    if unseen_overload(fn, count, source) is not None:
        return False
    if count is None:
        return True
    return _accepts(fn, count, _defaults_declared(fn.name, source))


def called_definition(
    name: str, count: int | None, source: SourceFile
) -> Function | None:
    """The one definition of an overloaded `name` a call of `count` arguments runs.

    None when `name` is defined once (or not at all), or when the count leaves
    more than one (or none) of its definitions. In the view of the file a call
    resolved by its argument types (`SourceFile.calling`), that definition.
    """
    found = definitions(name, source)
    if len(found) < 2:
        return None
    hidden = _defaults_declared(name, source)
    viable = [f for f in found if count is None or _accepts(f, count, hidden)]
    pinned = [f for f in viable if f.span.start_byte == source.pinned]
    if pinned:
        return pinned[0]  # the view of the file a call resolved by types sees
    if count is None:
        return None
    return viable[0] if len(viable) == 1 else None
