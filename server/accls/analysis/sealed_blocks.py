"""A pointer read from memory never points into a block no pointer in memory reaches.

`spmv(const csr_t *A, const double *x, double *y)` writes `y[r]` and reads
`A->val[k]`, a pointer loaded from the struct. When every call passes `y` a
block its caller allocated (`double *y = malloc(..)`) and never stored in
memory, returned or handed to a call that may keep it, no pointer stored
anywhere leads into that block: whatever `A->val` holds, it is another object.
"""

from __future__ import annotations

from accls.analysis.access_paths import Target
from accls.analysis.call_sites import sealed_at_call_sites
from accls.frontend import Function, SourceFile, Var

__all__ = ["sealed_apart"]


def _plain(var: Var, fn: Function) -> bool:
    """A pointer parameter of `fn` the function never reassigns."""
    return (
        var.scope == "param"
        and any(p is var for p in fn.params)
        and var.shape == "*"
        and not var.address_taken
        and not any(
            r.name == var.name and r.is_write and not r.subscripts and not r.deref
            for r in fn.refs
        )
    )


def sealed_apart(
    pairs: list[tuple[Target, Target]], fn: Function | None, source: SourceFile
) -> str | None:
    """Why each pair (a loaded pointer, a sealed parameter's block) is apart."""
    if fn is None or not pairs:
        return None
    shown: dict[str, str] = {}
    for a, b in pairs:
        kinds = {a.kind, b.kind}
        if kinds != {"loaded", "pointee"}:
            return None
        loaded, param = (a, b) if a.kind == "loaded" else (b, a)
        var = param.root
        if var is None or param.path != var.name or not _plain(var, fn):
            return None
        sites = sealed_at_call_sites(fn, var.name, source)
        if sites is None:
            return None
        shown[var.name] = (
            f"`{loaded.path}` never points into `{var.name}`: every call of "
            f"`{fn.name}()` ({', '.join(sites)}) passes a block its caller "
            "allocated and never stores in memory"
        )
    return "; ".join(shown.values())
