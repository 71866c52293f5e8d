"""Whether nothing but its name reaches an array a lifetime keeps (`own_array`)."""

from __future__ import annotations

import re

from accls.analysis import FileAnalysis
from accls.frontend import Call, Function, Ref, library_function
from accls.suggest.lifetime_uses import KernelIndex, inside

__all__ = ["COMMENTS", "own_array"]

COMMENTS = re.compile(rb"/\*.*?\*/|//[^\n]*", re.DOTALL)


def _harmless(
    fn: Function,
    ref: Ref,
    data: bytes,
    index: KernelIndex,
    seen: frozenset[str] = frozenset(),
) -> bool:
    """True when a read of the pointer's value hands it to nobody who keeps it.

    An argument of a kernel function, `free`, a library function (which keeps no
    pointer, `realloc` aside) or a function of the file whose parameter keeps
    it nowhere either, or a comparison (`u == NULL`).
    """
    calls = [
        c
        for c in fn.call_sites
        if inside(ref.span, c.span) and ref.span.start_byte > c.span.start_byte
    ]
    if calls:
        # The innermost call gets the pointer: `f(g(u))` hands `f` what `g` returns.
        call = min(calls, key=lambda c: c.span.end_byte - c.span.start_byte)
        if index.is_kernel(call.name) or call.name == "free":
            return True
        source_fn = index.analysis.source.function(call.name)
        if source_fn is None and _keeps_nothing(fn, call, index):
            return True
        if source_fn is not None:
            return _param_keeps_nothing(source_fn, call, ref.name, index, seen)
        return library_function(call.name) is not None and call.name != "realloc"
    after = data[ref.span.end_byte : ref.span.end_byte + 4].lstrip()
    before = data[max(0, ref.span.start_byte - 4) : ref.span.start_byte].rstrip()
    return after.startswith((b"==", b"!=")) or before.endswith((b"==", b"!=", b"!"))


def _param_keeps_nothing(
    callee: Function, call: Call, name: str, index: KernelIndex, seen: frozenset[str]
) -> bool:
    """True when the parameters of this file's `callee` handed `name` keep it nowhere.

    Each such argument is the pointer itself or an offset into it (`u`, `u + k`,
    `&u[k]`), and each parameter it lands in is, in the callee, only indexed,
    compared, or handed on to no keeper (recursion counts as a keeper).
    """
    if callee.name in seen or len(call.args) != len(callee.params):
        return False
    word = re.compile(rf"\b{re.escape(name)}\b")
    passed = re.compile(
        rf"^\(?\s*{re.escape(name)}\s*\)?(?:\s*[+-]\s*[\w\s*+-]+)?$"
        rf"|^&\s*{re.escape(name)}\s*\[[^\[\]]*\]$"
    )
    params: list[str] = []
    for arg, param in zip(call.args, callee.params, strict=True):
        if not word.search(arg):
            continue
        if not passed.match(arg.strip()) or param.address_taken:
            return False
        params.append(param.name)
    mine = [re.compile(rf"\b{re.escape(p)}\b") for p in params]
    if any(
        c.name in ("free", "realloc") and any(w.search(a) for w in mine for a in c.args)
        for c in callee.call_sites
    ):
        return False  # it frees the array: the lifetime would outlive its memory
    data = index.analysis.source.data
    return all(
        _harmless(callee, r, data, index, seen | {callee.name})
        for r in callee.refs
        if r.name in params
        and not r.deref
        and ((not r.subscripts and r.is_read) or (r.subscripts and r.escapes))
    )


def _keeps_nothing(fn: Function, call: Call, index: KernelIndex) -> bool:
    """True when another file's function, summarised, can store no pointer.

    Its summary says it writes only through its pointer parameters (a pointer
    stored in a global leaves it unsummarised); when each argument it writes
    through is a local `T *` of a non-pointer type, no pointer fits there.
    """
    program = index.analysis.program
    if program is None or not (program.whole and program.complete):
        return False
    found = program.only(call.name)
    summary = found.summary if found is not None else None
    if summary is None:
        return False
    for k in summary.writes:
        arg = call.args[k].strip() if k < len(call.args) else ""
        var = fn.lookup(arg)
        if var is None or var.pointers != 1 or var.dims:
            return False
        if var.type.rstrip().endswith("*") or var.type in ("void", "char"):
            return False
    return True


def _bare_reads_harmless(
    fn: Function, name: str, analysis: FileAnalysis, index: KernelIndex
) -> bool:
    """True when every read of the array's address in `fn` hands it to no keeper.

    The address is `a` itself, or an element's (`&a[1]`): a pointer kept from
    either is a second name whose host accesses get no `update`, and whose
    own clauses map the object again.
    """
    data = analysis.source.data
    return all(
        _harmless(fn, r, data, index)
        for r in fn.refs
        if r.name == name
        and not r.deref
        and ((not r.subscripts and r.is_read) or (r.subscripts and r.escapes))
    )


def _global_unaliased(name: str, analysis: FileAnalysis, index: KernelIndex) -> bool:
    """True when no code of the file takes the global array's address to keep it."""
    source = analysis.source
    if not all(
        _bare_reads_harmless(fn, name, analysis, index)
        for fn in source.functions
        if fn.lookup(name) is None
    ):
        return False
    # File-scope code (`double *p = a;`) is in no function's references.
    outside = bytearray(source.data)
    for fn in source.functions:
        start, end = fn.span.start_byte, fn.span.end_byte
        outside[start:end] = b" " * (end - start)
    code = COMMENTS.sub(b" ", bytes(outside))
    pattern = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b(?!\s*\[)")
    declared = re.compile(rb"\b" + re.escape(name.encode()) + rb"\s*\[")
    element = re.compile(rb"&\s*" + re.escape(name.encode()) + rb"\s*\[")
    if element.search(code):
        return False  # `double *p = &a[1];`: a second name into it
    return not pattern.search(code) or all(
        declared.match(code, m.start()) for m in pattern.finditer(code)
    )


def _foreign_pointer(analysis: FileAnalysis) -> str:
    """A global pointer that another file may set and that the file reads, or "".

    Another file may declare a global array of external linkage and keep an
    address into it (`extern double a[]; gp = &a[1];`): host code that reads
    through such a pointer touches the array under another name, which gets no
    `update`. A `static` pointer is set in this file alone, where it is seen.
    """
    source = analysis.source
    pointers = {
        g.name for g in source.globals if g.pointers and not g.dims and not g.static
    }
    for fn in source.functions:
        for ref in fn.refs:
            name = ref.name.split("->")[0].split(".")[0]
            touches = ref.is_read or ref.subscripts or ref.deref
            if name in pointers and touches and fn.lookup(name) is None:
                return name
    return ""


def own_array(
    fn: Function, name: str, analysis: FileAnalysis, index: KernelIndex
) -> bool:
    """True when nothing but `name` reaches the array: no other pointer aliases it."""
    var = fn.lookup(name)
    if var is None:
        glob = next((g for g in analysis.source.globals if g.name == name), None)
        return (
            glob is not None
            and bool(glob.dims)
            and glob.pointers == 0
            and _global_unaliased(name, analysis, index)
            and (glob.static or not _foreign_pointer(analysis))
        )
    if var.scope != "local" or var.static or var.address_taken:
        return False
    if any(name in v.sources for v in fn.locals if v is not var):
        return False  # another local pointer may point into it
    if var.dims and not var.pointers:
        if not all(d is not None for d in var.dims):
            return False
    elif var.pointers != 1 or not var.fresh:
        return False
    # `leaves` counts every call argument: allow those that keep nothing.
    return _bare_reads_harmless(fn, name, analysis, index)
