"""Pointer parameters proved apart from each other, or from globals, by call sites."""

from __future__ import annotations

from accls.analysis.access_paths import Target
from accls.analysis.call_site_rows import table_rows_apart
from accls.analysis.call_sites import (
    apart_from_global_at_call_sites,
    distinct_at_call_sites,
)
from accls.analysis.field_sets import FieldSets
from accls.analysis.pointer_origins import origin_apart
from accls.analysis.pointer_rotations import origin_pairs
from accls.analysis.remote_calls import ProgramCalls
from accls.frontend import Function, Loop, SourceFile

__all__ = ["calls_pending", "proved_apart"]


def proved_apart(
    pairs: list[tuple[Target, Target]],
    fn: Function | None,
    source: SourceFile,
    loop: Loop,
    calls: ProgramCalls | None = None,
    fields: FieldSets | None = None,
) -> str | None:
    """Why every call of `fn` passes disjoint objects for the pairs' parameters.

    A local pointer that only holds parameters (a copy, or one of two buffers
    swapped in turn) stands for them (`origin_pairs`); a parameter's pointee and
    a global object are apart when no call passes a pointer into that global;
    a local pointer set once from array objects reaches only them
    (`origin_apart`); the rows of a table parameter are apart from other memory
    when every call passes a table of fresh rows (`table_rows_apart`). `calls`
    and `fields`: the other files' calls and the
    program's field sets, when the workspace index gave them.
    """
    if fn is None:
        return None
    shown: dict[tuple[str, str], str] = {}
    for a, b in pairs:
        origin = origin_apart(a, b, fn, source)
        if origin:
            shown[(a.path, b.path)] = origin
            continue
        off = _off_global(a, b, fn, source, (calls, fields))
        if off is None:
            off = table_rows_apart(a, b, fn, source, calls)
        if off is not None:
            shown[(a.path, b.path)] = off
            continue
        if a.kind != "pointee" or b.kind != "pointee" or a.root is None:
            return None
        if b.root is None or a.root is b.root:
            return None
        found = origin_pairs(a.root, b.root, fn, source, loop)
        if found is None:
            return None
        keys, held = found
        for key in keys:
            if key[0] == key[1]:
                return None
            if key in shown:
                continue
            sites = distinct_at_call_sites(fn, *key, source, calls, fields)
            if sites is None:
                return None
            shown[key] = (
                f"`{key[0]}` and `{key[1]}` never overlap: every call of "
                f"`{fn.name}()` ({', '.join(sites)}) passes distinct objects"
            )
        if held:
            shown[(a.root.name, b.root.name)] = held
    return "; ".join(shown.values()) if shown else None


def _off_global(
    a: Target,
    b: Target,
    fn: Function,
    source: SourceFile,
    program: tuple[ProgramCalls | None, FieldSets | None],
) -> str | None:
    """Why a parameter's pointee never overlaps a global object, else None.

    `gather(double *out)` reading the global `acc`: when every call of it (the
    file holds them all) passes a block it allocated, a local array or another
    global, `out` never points into `acc`; a parameter the function reassigns
    may hold anything.
    """
    for ptr, obj in ((a, b), (b, a)):
        param, glob = ptr.root, obj.root
        if ptr.kind != "pointee" or obj.kind != "object":
            continue
        if param is None or glob is None or param.scope != "param":
            continue
        if glob.scope != "global" or any(
            r.name == param.name and r.is_write and not r.subscripts and not r.deref
            for r in fn.refs
        ):
            return None
        sites = apart_from_global_at_call_sites(
            fn, param.name, glob.name, source, *program
        )
        if sites is None:
            return None
        return (
            f"`{param.name}` never points into `{glob.name}`: every call of "
            f"`{fn.name}()` ({', '.join(sites)}) passes another object"
        )
    return None


def calls_pending(fn: Function | None, calls: ProgramCalls | None) -> str:
    """A note that the other files' calls of `fn` are not all read yet, else ""."""
    if fn is None or fn.static or calls is None or not calls.pending:
        return ""
    return (
        f" (the calls of `{fn.name}()` in the project's other files are not "
        "known yet: the workspace index is still being built)"
    )
