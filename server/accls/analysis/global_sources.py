"""The arrays and pointers a global pointer is set from, anywhere in the file.

`gq = g + 1` in `setup()` makes `gq` and `g` one object in every loop of the
program: no promise that pointers never overlap (assume-no-alias) can hold
for them, since the program itself makes them share storage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.frontend import FROM_CALL, Function, SourceFile, Var

__all__ = ["GlobalLink", "linked_objects", "shared_source"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_ASSIGN = re.compile(rb"\s*=\s*([^;{}]*)[;,]")
_MOST = 64  # names followed, at most, per pointer
_SCOPED = "\0"  # between a function's name and its local's


@dataclass(frozen=True, slots=True)
class GlobalLink:
    """A global pointer, or a function's parameter `f(0)`, and what sets it.

    `objects` are global names and parameters (`init(0)`): the pointer may be
    set from any of them, the parameter passed any of them.
    """

    target: str
    objects: tuple[str, ...]


def linked_objects(name: str, links: tuple[GlobalLink, ...]) -> set[str]:
    """The globals `links` say the global pointer `name` may be set from."""
    if not links:
        return set()
    by_target: dict[str, list[str]] = {}
    for link in links:
        by_target.setdefault(link.target, []).extend(link.objects)
    found: set[str] = set()
    seen = {name}
    todo = [name]
    while todo and len(seen) < 4 * _MOST:
        for got in by_target.get(todo.pop(), ()):
            if got in seen:
                continue
            seen.add(got)
            todo.append(got)
            if not got.endswith(")"):
                found.add(got)
    return found


def _global(name: str, source: SourceFile) -> Var | None:
    return next((g for g in source.globals if g.name == name), None)


def _is_pointer_or_array(var: Var | None) -> bool:
    return var is not None and (var.pointers > 0 or bool(var.dims))


def _assigned(name: str, source: SourceFile) -> list[tuple[str, Function | None]]:
    """The texts assigned to the global `name` (its initializer too), with where."""
    out: list[tuple[str, Function | None]] = []
    var = _global(name, source)
    span = var.span if var is not None else None
    # A header's declaration has the translation unit's offsets, not the file's.
    if span is not None and source.data[span.start_byte : span.end_byte] == (
        name.encode()
    ):
        found = _ASSIGN.match(source.data, span.end_byte)
        if found is not None:
            out.append((found.group(1).decode("utf-8", "replace"), None))
    for fn in source.functions:
        if fn.lookup(name) is not None:
            continue  # a local or parameter of that name hides the global
        for ref in fn.refs:
            if ref.name != name or not ref.is_write or ref.subscripts or ref.deref:
                continue
            found = _ASSIGN.match(source.data, ref.span.end_byte)
            if found is not None:
                out.append((found.group(1).decode("utf-8", "replace"), fn))
    return out


def _local_key(fn: Function, name: str) -> str:
    """A local's name, told apart from other functions' locals of that name."""
    return f"{fn.name}{_SCOPED}{name}"


def _passed(fn: Function, param: Var, source: SourceFile) -> list[tuple[str, Function]]:
    """The names the file's calls of `fn` pass for its parameter, with the caller.

    `void init(double *p) { gp = p; }` called as `init(a + 1)` sets `gp` from `a`.
    """
    try:
        at = [v.name for v in fn.params].index(param.name)
    except ValueError:
        return []
    out: list[tuple[str, Function]] = []
    for caller in source.functions:
        if caller.name == fn.name:
            continue  # recursion: its locals are another frame's, its parameters ours
        for call in caller.call_sites:
            if call.name == fn.name and at < len(call.args):
                out.extend((m.group(0), caller) for m in _NAME.finditer(call.args[at]))
    return out


def _sources(name: str, source: SourceFile) -> set[str]:
    """The global arrays and pointers the global pointer `name` may be set from.

    A local on the right-hand side (`double *t = g; gq = t;`) adds what it
    was set from, a parameter what the file's calls pass for it, and a global
    pointer its own sources in turn.
    """
    found: set[str] = set()
    todo = [name]
    while todo and len(found) < _MOST:
        current = todo.pop()
        for text, fn in _assigned(current, source):
            names = [(m.group(0), fn) for m in _NAME.finditer(text)]
            seen: set[tuple[str, str]] = set()
            while names and len(seen) < _MOST:
                word, scope = names.pop()
                if (word, scope.name if scope else "") in seen:
                    continue
                seen.add((word, scope.name if scope else ""))
                local = scope.lookup(word) if scope is not None else None
                if local is not None and scope is not None:
                    if local.scope == "local" and _is_pointer_or_array(local):
                        found.add(_local_key(scope, word))  # `init(buf + 1)`
                    if local.pointers and local.scope == "local":
                        names.extend(
                            (s, scope)
                            for s in local.sources
                            if s != FROM_CALL and s != word
                        )
                    elif local.scope == "param" and _is_pointer_or_array(local):
                        names.extend(_passed(scope, local, source))
                    continue
                var = _global(word, source)
                if not _is_pointer_or_array(var) or word in found or word == name:
                    continue
                found.add(word)
                if var is not None and var.pointers:
                    todo.append(word)
    return found


def _objects(
    var: Var,
    fn: Function | None,
    source: SourceFile,
    links: tuple[GlobalLink, ...] = (),
) -> set[str]:
    """`var`, the locals and globals its value may come from, and their sources.

    A parameter adds what the file's calls pass for it; a global, what the
    `links` of the program's files set it from.
    """
    found: set[str] = set()
    todo: list[tuple[str, Function | None]] = [(var.name, fn)]
    seen: set[tuple[str, str]] = set()
    while todo and len(found) < _MOST:
        name, scope = todo.pop()
        key = (name, scope.name if scope is not None else "")
        if key in seen or name == FROM_CALL:
            continue
        seen.add(key)
        local = scope.lookup(name) if scope is not None else None
        if local is not None and scope is not None:
            found.add(_local_key(scope, name))
            if local.scope == "local" and local.pointers:
                todo.extend((s, scope) for s in local.sources)
            elif local.scope == "param" and _is_pointer_or_array(local):
                todo.extend(_passed(scope, local, source))
            continue
        found.add(name)
        if links:
            todo.extend((got, None) for got in linked_objects(name, links))
        known = _global(name, source)
        if known is not None and known.pointers:
            for got in _sources(name, source):
                if _SCOPED in got:
                    found.add(got)  # a caller's local: resolved already
                else:
                    todo.append((got, None))
    return found


def shared_source(
    one: Var,
    two: Var,
    fn: Function | None,
    source: SourceFile,
    links: tuple[GlobalLink, ...] = (),
) -> str:
    """An object the program sets two pointers from, through a global, or "".

    `gq = g + 1` (in any function, or `gq`'s initializer) gives `g` for `gq`
    and `g`; `p = buf; q = buf + n` with `p`, `q` global gives `buf`. `links`:
    the program's files' (`gq = g + 1` in another file), when an index gave them.
    """
    if one is two or not any(
        v.scope == "global" or v.scope == "local" for v in (one, two)
    ):
        return ""
    common = _objects(one, fn, source, links) & _objects(two, fn, source, links)
    return min(common).rpartition(_SCOPED)[2] if common else ""
