"""Why a write through an index list stays refused: `a[idx[i]] = ..`, `a[e] = ..`.

`ss[regElemList[i]] = x` (or `ielem = regElemList[i]; ss[ielem] = x`) is a
scatter: two iterations write one element whenever the list repeats an index.
The dependence test cannot rule that out, and the program seldom shows it (a
list filled elsewhere, at run time); the refusal names the list, so that the
reader sees the one fact that would make the loop parallel.
"""

from __future__ import annotations

from accls.analysis.model import Dependence
from accls.frontend import AccessKind, Ref, Span

__all__ = ["scatter_reason"]


def scatter_reason(dep: Dependence, refs: dict[Span, Ref]) -> str | None:
    """The scatter `dep` stands for, in words, or None when it is no such write."""
    pair = [refs.get(dep.source), refs.get(dep.sink)]
    write = next((r for r in pair if r is not None and r.is_write), None)
    if write is None or not write.subscripts:
        return None
    listed = _index_list(write, refs)
    if listed is None:
        return None
    return (
        f"`{write.render()}` is written through the index "
        f"{listed}: a scatter, where two iterations write one element "
        "whenever the list repeats an index, and the program does not show that "
        "it never does"
    )


def _index_list(write: Ref, refs: dict[Span, Ref]) -> str | None:
    """The index list of `a[idx[i]]`, or of `a[e]` with `e = idx[i]` set in the loop."""
    for sub in write.subscripts:
        if sub.indirect:
            text = " ".join(sub.text.split())
            if "[" in text or "(" in text:
                return f"list `{text}`"
            return f"`{text}`, which reads another array"  # `for (int j : idx)`
    names = {n for sub in write.subscripts if sub.poly for n in sub.poly.names()}
    for name in sorted(names):
        stores = [
            r
            for r in refs.values()
            if r.name == name and r.is_write and not r.subscripts and not r.deref
        ]
        if len(stores) != 1 or stores[0].kind is not AccessKind.WRITE:
            continue  # a loop's counter (`i++`), or set more than once
        store = stores[0]
        # The value stored: the element reads after the name on its line.
        read = next(
            (
                r
                for r in refs.values()
                if not r.is_write
                and r.subscripts
                and r.span.line == store.span.line
                and r.span.start_byte > store.span.start_byte
            ),
            None,
        )
        if read is not None:
            return f"list `{read.render()}` (`{name}`, line {store.span.line})"
    return None
