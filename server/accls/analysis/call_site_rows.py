"""The rows of a pointer-table parameter, proved apart from other memory by call sites.

`void sum_rows(double **a, double *b, int n)` reads `a[x][y]` and writes `b[x]`:
each row `a[x]` is a pointer read from memory, which may point anywhere, `b`
included. But when every call passes for `a` a local table of the caller whose
every row is a block of its own (`t[i] = malloc(..)`, the front end's
`fresh_rows`), and for `b` memory that is none of those rows (another fresh
block, an array, a global, a row of another such table, or what the caller's
own parameters held before it allocated the rows), no row of `a` overlaps `b`.
Only while the callee leaves the table as the caller made it: it never
reassigns the parameter, copies it, stores a row slot (`a[k] = ..`), takes an
address in it, or passes it to a call that might re-point a row.
"""

from __future__ import annotations

import re

from accls.analysis.access_paths import Target
from accls.analysis.call_origins import Origin, argument_origin, reassigned
from accls.analysis.call_site_lists import CallSiteLists, Site, callee_of
from accls.analysis.remote_calls import ProgramCalls
from accls.frontend import Function, SourceFile, Var

__all__ = ["table_rows_apart"]

# What the other argument may be: memory no fresh row of the table lies in.
_APART = ("fresh", "local", "global", "param", "row")


def table_rows_apart(
    a: Target,
    b: Target,
    fn: Function,
    source: SourceFile,
    calls: ProgramCalls | None = None,
) -> str | None:
    """Why the rows of a table parameter never overlap the other target, else None."""
    for rows, other in ((a, b), (b, a)):
        table = _steady_table(rows, fn)
        if table is None:
            continue
        other_param = _other_param(other, fn, table)
        if other_param is None and not _global_object(other):
            continue
        sites = _sites_apart(fn, table, other_param, source, calls)
        if sites is None:
            continue
        what = f"`{other_param}`" if other_param else f"`{other.path}`"
        return (
            f"the rows of `{table.name}` never overlap {what}: every call of "
            f"`{fn.name}()` ({', '.join(sites)}) passes a table whose rows are "
            "blocks of their own, and other memory"
        )
    return None


def _steady_table(target: Target, fn: Function) -> Var | None:
    """The parameter whose rows the target reads, when the callee never changes them."""
    var = target.root
    if target.kind != "loaded" or var is None or var.scope != "param":
        return None
    if target.path != var.name or target.selectors != 1 or var.shape != "**":
        return None
    if fn.declarations(var.name) != 1 or var.address_taken or reassigned(var.name, fn):
        return None
    for ref in fn.refs:
        if ref.name != var.name:
            continue
        if ref.escapes or ref.into or (ref.is_write and len(ref.subscripts) < 2):
            return None  # `&a[k]`, `p = &a[k]`, `a[k] = q`, `*a = q`
        if not ref.subscripts and not ref.deref:
            return None  # `double **p = a;`: a copy may store a row slot
    word = re.compile(rf"\b{re.escape(var.name)}\b")
    if any(word.search(arg) for call in fn.call_sites for arg in call.args):
        return None  # a call may store a row slot
    return var


def _other_param(target: Target, fn: Function, table: Var) -> str | None:
    """The pointer parameter whose pointee the other target is, else None."""
    var = target.root
    if target.kind != "pointee" or var is None or var.scope != "param":
        return None
    if var.name == table.name or fn.declarations(var.name) != 1:
        return None
    return None if reassigned(var.name, fn) else var.name


def _global_object(target: Target) -> bool:
    """A global array: no block allocated on the heap lies in it."""
    var = target.root
    return target.kind == "object" and var is not None and var.scope == "global"


def _sites_apart(
    fn: Function,
    table: Var,
    other: str | None,
    source: SourceFile,
    calls: ProgramCalls | None,
) -> list[str] | None:
    """The calls of `fn`, when each passes a table of fresh rows and other memory."""
    callee = callee_of(fn)
    found = CallSiteLists(source, calls).only_called(callee)
    if not found:
        return None
    at = callee.params.index(table.name)
    there = callee.params.index(other) if other is not None else -1
    out: list[str] = []
    for site in found:
        if max(at, there) >= site.count():
            return None
        rows, held = _origin(site, at, source), _origin(site, there, source)
        if rows is None or rows.kind != "fresh" or not rows.rows:
            return None
        if _passed_twice(site, at, rows.path):
            return None  # another parameter could store a row slot of it
        if other is not None and (
            held is None
            or held.kind not in _APART
            or (held.kind in ("fresh", "row") and held.path == rows.path)
        ):
            return None
        out.append(site.where)
    return out


def _passed_twice(site: Site, at: int, table: str) -> bool:
    """Whether an argument other than the table's names the table too."""
    if site.call is not None:
        texts = site.call.args
    elif site.record is not None and site.record.texts:
        texts = site.record.texts
    else:
        return True
    word = re.compile(rf"\b{re.escape(table)}\b")
    return any(word.search(t) for k, t in enumerate(texts) if k != at)


def _origin(site: Site, at: int, source: SourceFile) -> Origin | None:
    if at < 0:
        return None
    if site.caller is not None and site.call is not None:
        return argument_origin(site.call.args[at], site.caller, source)
    return site.record.args[at] if site.record is not None else None
