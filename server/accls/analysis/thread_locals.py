"""Thread-local storage: one copy of the object per thread.

`static __thread double buf[N]` (`_Thread_local`, `thread_local`, or a name of
`#pragma omp threadprivate`) is a distinct object in every thread. A parallel
loop's iterations on other threads read their own copies (zeros, not what the
serial code put there) and write copies the code after the loop never reads:
serially 4992, at 4 threads 0. A loop that uses such an object, itself or
through a function of the file it calls, stays serial.
"""

from __future__ import annotations

import re
from functools import lru_cache

from accls.analysis.access_paths import base_name
from accls.analysis.model import Obstacle, ObstacleCode
from accls.frontend import Function, Loop, Ref, SourceFile
from accls.frontend.scopes import in_scope

__all__ = ["thread_local_obstacle"]

_DECLARATION = re.compile(r"\b(?:__thread|_Thread_local|thread_local)\b([^;]*);")
# Extents and initialisers (`= 0`, `(42)`, `{0}`), leaving the declarators' names.
_BRACKETS = re.compile(r"\[[^\]]*\]|\([^)]*\)|\{[^}]*\}|=[^,]*")
_NAME = re.compile(r"([A-Za-z_]\w*)\s*$")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_MOST = 64  # functions of the file followed, at most


@lru_cache(maxsize=8)
def _declared(text: str) -> frozenset[str]:
    """The names a text declares thread-local (every declarator of the statement)."""
    if "thread" not in text.lower():
        return frozenset()
    names: set[str] = set()
    for found in _DECLARATION.finditer(_COMMENT.sub(" ", text)):
        for part in _BRACKETS.sub("", found.group(1)).split(","):
            name = _NAME.search(part.strip())
            if name is not None:
                names.add(name.group(1))
    return frozenset(names)


def _shadowed(ref: Ref, name: str, fn: Function | None) -> bool:
    """True when `name` at `ref` is a parameter or a local declared in scope."""
    if fn is None:
        return False
    if any(p.name == name for p in fn.params):
        return True
    at = ref.span.start_byte
    return any(v.span is not None and in_scope(at, v) for v in fn.locals_named(name))


def _uses(refs: tuple[Ref, ...], fn: Function | None, names: frozenset[str]) -> str:
    """The first of `names` among `refs` that is not the function's own variable."""
    for ref in refs:
        name = base_name(ref.name)
        if name in names and not _shadowed(ref, name, fn):
            return name
    return ""


def thread_local_obstacle(loop: Loop, source: SourceFile) -> Obstacle | None:
    """Why a loop using a thread-local object (itself or by a callee) stays serial."""
    names = _declared(source.text) | source.threadprivate
    if not names:
        return None
    fn = source.function(loop.function) if loop.function else None
    used = _uses(loop.refs, fn, names)
    where = loop.span.line
    todo = [c.name for c in loop.calls]
    seen: set[str] = set()
    while not used and todo and len(seen) < _MOST:
        name = todo.pop()
        callee = source.function(name)
        if callee is None or name in seen:
            continue
        seen.add(name)
        used = _uses(callee.refs, callee, names)
        where = callee.span.line if used else where
        todo.extend(c.name for c in callee.call_sites)
    if not used:
        return None
    return Obstacle(
        code=ObstacleCode.STATIC,
        line=where,
        variable=used,
        message=f"uses `{used}`, which is thread-local: each thread has its own "
        "copy, so iterations on other threads would read and write copies the "
        "code around the loop never sees",
    )
