"""Record fields that hold `omp_get_num_threads()` taken outside a parallel region.

Outside any `parallel` region the team is the initial thread alone, so
`omp_get_num_threads()` returns 1 there. `scratch_init(&s,
omp_get_num_threads())` in `main` with `s->nrows = nrows;` in `scratch_init`
sets `nrows` to 1, and a per-thread row `tid % s->nrows` later is row 0 for
every thread. A field counts when every store of it in the file is such a
value: the call written directly (`s.n = omp_get_num_threads();`), or a
parameter of the storing function that every call of it in the file passes
that call for, the function never setting the parameter itself. The call must
sit in `main` outside every `parallel` construct: code that surely runs on the
initial thread alone (another function might be called from a region of
another file). No store may be compound, and the field's address never taken.
"""

from __future__ import annotations

import re

from accls.frontend import Function, Ref, SourceFile

__all__ = ["one_thread_fields"]

_QUERY = re.compile(r"omp_get_num_threads\s*\(\s*\)")
_STORE = re.compile(rb"\s*=\s*([^;{}=][^;{}]*);")


def one_thread_fields(source: SourceFile) -> frozenset[str]:
    """The fields every store of which is `omp_get_num_threads()` of the one thread."""
    stores: dict[str, list[tuple[Ref, Function]]] = {}
    for fn in source.functions:
        for ref in fn.refs:
            field = _field(ref)
            if field is None:
                continue
            if ref.is_write or ref.escapes:  # an address taken: never one
                stores.setdefault(field, []).append((ref, fn))
    return frozenset(
        field
        for field, found in stores.items()
        if all(_one_thread_store(ref, fn, source) for ref, fn in found)
    )


def _field(ref: Ref) -> str | None:
    """`nrows` for a reference to `s->nrows` or `s.nrows` (no subscript)."""
    if not ref.member or ref.subscripts:
        return None
    last = re.split(r"->|\.", ref.name)[-1].strip()
    return last if last.isidentifier() else None


def _one_thread_store(ref: Ref, fn: Function, source: SourceFile) -> bool:
    """True for a plain store of the one thread's team size."""
    if ref.escapes or ref.is_read:
        return False  # `&s->n`, or `s->n += ...`
    value = _STORE.match(source.data, ref.span.end_byte)
    text = value.group(1).decode(errors="replace").strip() if value else ""
    if _QUERY.fullmatch(text):
        return _initial_thread(fn, ref.span.start_byte, source)
    params = [p.name for p in fn.params]
    if text not in params or any(r.name == text and r.is_write for r in fn.refs):
        return False
    index = params.index(text)
    calls = [
        (caller, call)
        for caller in source.functions
        for call in caller.call_sites
        if call.name == fn.name
    ]
    return bool(calls) and all(
        len(call.args) == len(params)
        and _QUERY.fullmatch(call.args[index].strip()) is not None
        and _initial_thread(caller, call.span.start_byte, source)
        for caller, call in calls
    )


def _initial_thread(fn: Function, pos: int, source: SourceFile) -> bool:
    """True when `pos` in `fn` surely runs on the initial thread alone."""
    if fn.name != "main":
        return False
    return not any(
        "parallel" in c.directive.name.split()
        and c.span.start_byte <= pos < c.span.end_byte
        for c in source.constructs
    )
