"""Library calls that set `errno`, in a program that reads it.

`log(-1.0)` sets `errno` to `EDOM`, `strtol` and `pow` to `ERANGE`; `errno` is
the thread's own (C11), so in a parallel loop the failing call of another
thread sets that thread's `errno`, and the program that reads it after the
loop sees `0` (serially `33`). The table of library effects calls these
functions pure, and they are, but for `errno`: a loop that reaches one (itself
or through the file's functions) stays serial where the program may read
`errno` after it (`errno` or `perror`, in its function after the loop, or in a
caller after the call, or in a function of the file called there); a read
before it (`perror` after `fopen`), or after a reset that covers it (`errno =
0; strtod(..); if (errno)`), sees none of its calls. Another file's function
counts by what the index says of it (it may set `errno`, it may read it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from accls.analysis.model import Obstacle, ObstacleCode
from accls.frontend import AccessKind, Call, Function, Loop, Ref, SourceFile

if TYPE_CHECKING:
    from accls.analysis.program import ProgramSummaries

__all__ = ["errno_effects", "errno_obstacle", "read_after_call"]

# <math.h> functions that may report a domain, pole or range error in `errno`
# (glibc's math_errhandling has MATH_ERRNO); their f and l forms too. `sin`,
# `cos` and `tan` of an infinity set EDOM.
_MATH = frozenset(
    {
        "sin", "cos", "tan", "sincos", "exp10",
        "acos", "asin", "atan2", "acosh", "atanh", "cosh", "sinh",
        "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logb",
        "pow", "sqrt", "hypot", "fmod", "remainder", "lround", "llround",
        "lrint", "llrint", "fdim", "fma", "erfc", "tgamma", "lgamma",
        "ldexp", "scalbn", "scalbln", "ilogb", "nextafter", "nexttoward",
        "j0", "j1", "jn", "y0", "y1", "yn",
    }
)  # fmt: skip
_OTHERS = frozenset(
    {
        "strtod", "strtof", "strtold", "strtol", "strtoll", "strtoul",
        "strtoull", "strtoimax", "strtoumax", "atof", "wcstod", "wcstol",
        "wcstof", "wcstold", "wcstoll", "wcstoul", "wcstoull",
        # glibc's are strtol: a number out of range sets ERANGE
        "atoi", "atol", "atoll",
        # EOVERFLOW past INT_MAX characters, EILSEQ for a bad wide character
        "snprintf", "sprintf",
    }
)  # fmt: skip
_MOST = 64  # functions of the file followed, at most


def _sets_errno(name: str) -> bool:
    bare = name.removeprefix("std::")
    if bare in _OTHERS or bare in _MATH:
        return True
    return bare[-1:] in ("f", "l") and bare[:-1] in _MATH


def _resets(refs: list[Ref]) -> list[Ref]:
    """The plain stores of `errno` among `refs` (`errno = 0`)."""
    return [
        w
        for w in refs
        if w.kind is AccessKind.WRITE and not (w.subscripts or w.deref or w.member)
    ]


def _covered(read: Ref, resets: list[Ref]) -> bool:
    """A reset before `read`, in its block or an enclosing one, no condition between."""
    return any(
        w.span.start_byte < read.span.start_byte
        and read.context[: len(w.context)] == w.context
        for w in resets
    )


def _reads_after(
    fn: Function,
    pos: int,
    source: SourceFile,
    program: ProgramSummaries | None,
    seen: set[str] | None = None,
) -> bool:
    """True when `fn` reads the library's `errno` after byte `pos` (`perror` too).

    A read that a reset after `pos` covers (`errno = 0;` before it, in the same
    or an enclosing block, no condition between) sees only what follows it. A
    call after `pos` of a function of the file that reads it before any reset
    of its own (`report()`, `if (failed())`), or of another file's that reads
    it at all, reads it too.
    """
    if fn.lookup("errno") is not None:
        return False  # a local of that name
    after = [r for r in fn.refs if r.name == "errno" and r.span.start_byte > pos]
    resets = _resets(after)

    if any(r.is_read and not _covered(r, resets) for r in after):
        return True
    # A reset in the function's own block (no loop or condition around it)
    # covers every call after it.
    top = [w.span.start_byte for w in resets if not w.context]
    later = [
        c
        for c in fn.call_sites
        if c.span.start_byte > pos and not any(t < c.span.start_byte for t in top)
    ]
    if any(c.name == "perror" for c in later):
        return True
    seen = seen if seen is not None else {fn.name}
    for call in later:
        callee = source.function(call.name)
        elsewhere = program.lookup(call.name) if program is not None else ()
        if callee is None and any(d.reads_errno for d in elsewhere):
            return True
        if callee is None or call.name in seen:
            continue
        if len(seen) >= _MOST:
            return True  # too many to follow: it may
        seen.add(call.name)
        # The callee whole, from its start: its own resets cover its later reads.
        if _reads_after(callee, -1, source, program, seen):
            return True
    return False


def _read_later(
    loop: Loop, source: SourceFile, program: ProgramSummaries | None
) -> bool:
    """True when the program may read `errno` after the loop.

    In its function after it, or in a caller of that function after the call,
    as far as the file shows, or after a call of that function another file
    makes, as far as the index shows. Inside a `for` loop around it, a read
    before it comes after it too: in the next iteration.
    """
    if any(g.name == "errno" for g in source.globals):
        return False  # the program's own variable of that name
    own = source.function(loop.function) if loop.function else None
    if own is None:
        return False
    around = [
        outer.span.start_byte
        for outer in source.loops()
        if outer.function == loop.function
        and outer.span.start_byte < loop.span.start_byte
        and outer.span.end_byte >= loop.span.end_byte
    ]
    return _read_from(own, min(around, default=loop.span.end_byte), source, program)


def _read_from(
    own: Function, start: int, source: SourceFile, program: ProgramSummaries | None
) -> bool:
    """True when `own` (or a caller, after its call) may read `errno` after `start`."""
    calls = program.calls if program is not None else None
    todo = [(own, start)]
    seen: set[tuple[str, int]] = set()
    while todo and len(seen) < _MOST:
        fn, pos = todo.pop()
        if (fn.name, pos) in seen:
            continue
        seen.add((fn.name, pos))
        if _reads_after(fn, pos, source, program):
            return True
        remote = calls.calls_of(fn.name) if calls and not fn.static else []
        if any(r.errno_after for _, r in remote):
            return True
        todo.extend(
            (caller, call.span.end_byte)
            for caller in source.functions
            for call in caller.call_sites
            if call.name == fn.name
        )
    return False


def read_after_call(caller: Function, call: Call, source: SourceFile) -> bool:
    """Whether the file may read `errno` after `call` of `caller` (callers followed)."""
    if "errno" not in source.text and "perror" not in source.text:
        return False
    if any(g.name == "errno" for g in source.globals):
        return False
    return _read_from(caller, call.span.end_byte, source, None)


def _errno_call(
    calls: Iterable[Call], source: SourceFile, program: ProgramSummaries | None
) -> tuple[str, int] | None:
    """The first call `calls` reach that may set `errno`: (name, line)."""
    todo = [(c.name, c.span.line) for c in calls]
    seen: set[str] = set()
    while todo and len(seen) < _MOST:
        name, line = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        fn = source.function(name)
        if fn is None:
            elsewhere = program.lookup(name) if program is not None else ()
            if _sets_errno(name) or any(d.sets_errno for d in elsewhere):
                return name, line
            continue
        todo.extend((c.name, line) for c in fn.call_sites)
    return None


def errno_effects(
    fn: Function, source: SourceFile, program: ProgramSummaries | None = None
) -> tuple[bool, bool]:
    """Whether a call of `fn` may set `errno`, and whether it may read it."""
    if any(g.name == "errno" for g in source.globals):
        return False, False
    sets = _errno_call(fn.call_sites, source, program) is not None
    return sets, _reads_after(fn, -1, source, program)


def _read_in_loop(
    loop: Loop, source: SourceFile, program: ProgramSummaries | None
) -> bool:
    """True when an iteration may read `errno` an earlier one set (no reset first).

    `errno` stays set until reset: serially a failure shows in every later
    iteration's `if (errno)` or `failed()`, in parallel only in its thread's.
    """
    fn = source.function(loop.function) if loop.function else None
    if fn is not None and fn.lookup("errno") is not None:
        return False
    if any(g.name == "errno" for g in source.globals):
        return False
    refs = [r for r in loop.refs if r.name == "errno"]
    if any(r.is_read and not _covered(r, _resets(refs)) for r in refs):
        return True
    for call in loop.calls:
        callee = source.function(call.name)
        elsewhere = program.lookup(call.name) if program is not None else ()
        if call.name == "perror" or any(d.reads_errno for d in elsewhere):
            return True
        if callee is not None and _reads_after(callee, -1, source, program):
            return True
    return False


def errno_obstacle(
    loop: Loop, source: SourceFile, program: ProgramSummaries | None = None
) -> Obstacle | None:
    """Why a loop that may set `errno`, in a file that reads it, stays serial."""
    if loop.fortran:
        return None
    if not (_read_later(loop, source, program) or _read_in_loop(loop, source, program)):
        return None
    found = _errno_call(loop.calls, source, program)
    if found is None:
        return None
    name, line = found
    return Obstacle(
        code=ObstacleCode.CONDITIONAL_LAST,
        line=line,
        variable="errno",
        message=f"calls `{name}()` (line {line}), which may set `errno`, and the "
        "program reads `errno` after it (or a later iteration does): each thread "
        "has its own, so in parallel it would not hold the failing call's value",
    )
