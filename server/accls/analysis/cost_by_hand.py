"""Work divided by hand: a loop whose bounds follow from the calling thread's number.

    my_id = omp_get_thread_num();  nthreads = omp_get_num_threads();
    chunk = n / nthreads;  first = my_id * chunk;
    for (j = first; j < first + chunk; j++) ...

The author shares the work out by hand: each thread of a region (around the code,
or around a call of its function in another file) runs the loop over its own part.
Outside a region the two calls answer 0 and 1, so such code only makes sense inside
one. A `parallel for` there would open a nested region per thread and cut each part
again; the parallelism is already the region's. The rule follows the values of the
two calls through the assignments of the function before the loop (a few steps),
and holds when the loop's header uses one of them.
"""

from __future__ import annotations

import re

from accls.frontend import Loop, SourceFile

__all__ = ["by_hand_reason"]

_THREAD_CALLS = frozenset({"omp_get_thread_num", "omp_get_num_threads"})
_WORD = re.compile(r"[A-Za-z_]\w*")
_ASSIGN = re.compile(r"\b([A-Za-z_]\w*)\s*=(?!=)([^;{}]*)")
_NOISE = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", re.DOTALL)
_STEPS = 4  # assignments followed from the calls to the loop's bounds


def by_hand_reason(source: SourceFile, loop: Loop) -> str:
    """Why `loop` is one thread's part of work divided by hand, or ""."""
    fn = source.function(loop.function)
    if fn is None or fn.span.start_byte > loop.span.start_byte:
        return ""
    header = source.data[loop.header.start_byte : loop.header.end_byte]
    words = set(_WORD.findall(header.decode("utf-8", "replace")))
    before = source.data[fn.span.start_byte : loop.span.start_byte]
    text = _NOISE.sub(" ", before.decode("utf-8", "replace"))
    derived: set[str] = set()
    for _ in range(_STEPS):
        grown = {
            found.group(1)
            for found in _ASSIGN.finditer(text)
            if set(_WORD.findall(found.group(2))) & (_THREAD_CALLS | derived)
        }
        if grown <= derived:
            break
        derived |= grown
    used = sorted(words & (derived | _THREAD_CALLS))
    if not used:
        return ""
    return (
        f"work divided by hand: the loop's bounds use `{used[0]}`, which follows "
        "from the calling thread's number: each thread of an enclosing region runs "
        "its own part, and a pragma here would cut that part again"
    )
