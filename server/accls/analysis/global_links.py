"""What each file sets the program's global pointers from, for the other files.

`gp = &A[1]` in `setup.c` makes `gp` and `A` one object in every loop of the
program, and so does `void init(double *p) { gp = p; }` in one file called as
`init(A + 1)` in another. One file sees only its own part: each file records
its links (a global pointer to the globals and the parameters of its
functions it is set from; a parameter to the globals and the caller's
parameters its calls pass), and the loop's file follows those of every file.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from accls.analysis.global_sources import (
    _MOST,
    _NAME,
    _SCOPED,
    GlobalLink,
    _assigned,
    _global,
    _is_pointer_or_array,
    _sources,
)
from accls.frontend import FROM_CALL, Function, SourceFile

if TYPE_CHECKING:
    from accls.analysis.program import ProgramSummaries

__all__ = ["file_global_links", "with_own_links"]


def _slot(fn: Function, name: str) -> str:
    """`init(0)` for `init`'s parameter `name`; "" when no other file reaches it."""
    names = [v.name for v in fn.params]
    if fn.static or name not in names:
        return ""
    return f"{fn.name}({names.index(name)})"


def _named(text: str, fn: Function | None, source: SourceFile) -> set[str]:
    """The globals and `fn`'s parameters a value may come from (through locals)."""
    found: set[str] = set()
    todo = [m.group(0) for m in _NAME.finditer(text)]
    seen: set[str] = set()
    while todo and len(seen) < _MOST:
        word = todo.pop()
        if word in seen or word == FROM_CALL:
            continue
        seen.add(word)
        local = fn.lookup(word) if fn is not None else None
        if local is not None and fn is not None:
            if local.scope == "param" and _is_pointer_or_array(local):
                found.add(_slot(fn, word))
            elif local.scope == "local" and local.pointers and not local.static:
                todo.extend(local.sources)
            continue
        if _is_pointer_or_array(_global(word, source)):
            found.add(word)
    return found - {""}


def file_global_links(source: SourceFile) -> tuple[GlobalLink, ...]:
    """The file's links: its non-static global pointers' sources, its calls' pointers.

    A call passing no global or parameter of its caller links nothing.
    """
    out: list[GlobalLink] = []
    for var in source.globals:
        if var.static or not var.pointers or var.dims:
            continue
        objects = {s for s in _sources(var.name, source) if _SCOPED not in s}
        for text, fn in _assigned(var.name, source):
            objects |= _named(text, fn, source)
        objects.discard(var.name)
        if objects:
            out.append(GlobalLink(var.name, tuple(sorted(objects))))
    local = {fn.name for fn in source.functions if fn.static}
    for caller in source.functions:
        for call in caller.call_sites:
            if call.name in local:
                continue  # a static callee: no other file sets a pointer from it
            for at, text in enumerate(call.args):
                slot = f"{call.name}({at})"
                passed = _named(text, caller, source) - {slot}
                if passed:
                    out.append(GlobalLink(slot, tuple(sorted(passed))))
    return tuple(dict.fromkeys(out))


def _reached(links: tuple[GlobalLink, ...]) -> tuple[GlobalLink, ...]:
    """The links of the pointers and of the parameters some pointer is set from.

    Most calls pass globals to functions that set no pointer: a loop never
    follows those, so they are left out.
    """
    kept = [k for k in links if not k.target.endswith(")")]
    by_slot: dict[str, list[GlobalLink]] = {}
    for link in links:
        if link.target.endswith(")"):
            by_slot.setdefault(link.target, []).append(link)
    todo = [o for k in kept for o in k.objects if o.endswith(")")]
    seen: set[str] = set()
    while todo:
        slot = todo.pop()
        if slot in seen:
            continue
        seen.add(slot)
        for link in by_slot.get(slot, ()):
            kept.append(link)
            todo.extend(o for o in link.objects if o.endswith(")"))
    return tuple(kept)


def with_own_links(
    program: ProgramSummaries | None, source: SourceFile
) -> ProgramSummaries | None:
    """`program` with the file's own links beside the other files'.

    Only when another file links something: alone, the file's own assignments
    and calls are what `shared_source` reads already.
    """
    if program is None or not program.global_links:
        return program
    own = file_global_links(source)
    links = _reached(tuple(dict.fromkeys((*program.global_links, *own))))
    return replace(program, global_links=links)
