"""Offloaded loops that follow pointers from a host table: refused.

The analysis reads `t[1][i]` of `double *t[2] = {buf, buf + n};` as
`buf[n + i]` (`analysis/pointer_tables.py`), which proves the loop parallel,
but the loop still loads `t[1]`: offloaded, the device would copy the table
and follow host addresses. Such a loop stays on the host.
"""

from __future__ import annotations

from accls.frontend import Loop

__all__ = ["table_pointers"]


def table_pointers(original: Loop, analysed: Loop) -> tuple[str, ...]:
    """Why `original` cannot be offloaded: entries of a table it follows."""
    renamed = {
        r.span.start_byte: r.name for inner in analysed.walk() for r in inner.refs
    }
    for inner in original.walk():
        for ref in inner.refs:
            into = renamed.get(ref.span.start_byte, ref.name)
            if len(ref.subscripts) < 2 or into == ref.name:
                continue
            return (
                f"follows the pointer `{ref.name}[{ref.subscripts[0].text}]` read "
                f"from a table of the host at line {ref.span.line}: offloaded, the "
                f"device would follow a host address; index `{into}` directly",
            )
    return ()
