"""Whether a host call runs device code: offloaded loops, kernels, the user's pragmas.

Inside a lifetime a kernel's copy clauses find the array present and move nothing.
A host function that runs its own kernel on a kept array and then reads it on the
host reads the stale host copy, and the `update device` after the call would send
that stale copy back over the kernel's results: no update around the call can
make it right, so the array is not kept across such a call.
"""

from __future__ import annotations

import re

from accls.frontend import Function
from accls.suggest.lifetime_owners import COMMENTS
from accls.suggest.lifetime_uses import KernelIndex

__all__ = ["runs_device_code"]

_DIRECTIVE = re.compile(rb"#\s*pragma\s+(?:acc|omp)\b")


def _own_device_code(fn: Function, index: KernelIndex) -> bool:
    """True when `fn` itself offloads a loop or holds an acc/omp directive."""
    if index.tops(fn.name):
        return True
    data = index.analysis.source.data
    body = COMMENTS.sub(b" ", data[fn.span.start_byte : fn.span.end_byte])
    return bool(_DIRECTIVE.search(body))


def runs_device_code(name: str, index: KernelIndex) -> bool:
    """True when a call of `name` may run device code (transitively, in the file).

    Another file's function counts when the index knows it as a kernel; one it
    does not know is left to the caller's rules for unknown code.
    """
    source = index.analysis.source
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if index.is_kernel(current) or index.external(current) is not None:
            return True
        fn = source.function(current)
        if fn is None:
            continue
        if _own_device_code(fn, index):
            return True
        todo.extend(fn.calls)
    return False
