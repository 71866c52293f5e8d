"""Function summaries: what a function reads and writes through its pointer arguments.

A call such as `LCG_random_double(&seed)` or `fill_coeffs(x, y, tmp)` looks
impure (it writes memory), but when the function writes only through its
pointer parameters, and at the call site those are the iteration's own locals,
the effects stay inside the iteration. Summaries are computed bottom-up over the
call graph; recursion, globals written, `static` locals, I/O and unknown callees
make a function unsummarisable (None), and its calls stay obstacles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from accls.analysis.access_paths import base_name
from accls.analysis.integer_addresses import integer_addresses
from accls.analysis.overloads import called_definition, definitions, takes
from accls.analysis.static_locals import has_static
from accls.analysis.summary_calls import NULL_ARGUMENT, map_call
from accls.analysis.unread_bodies import unread_part
from accls.frontend import (
    Call,
    Effect,
    Function,
    SourceFile,
    library_function,
)

if TYPE_CHECKING:
    from accls.analysis.program import ProgramSummaries

__all__ = [
    "NULL_ARGUMENT",
    "Summary",
    "base_name",
    "callback_globals",
    "callback_reason",
    "summarize",
    "unsummarised_reason",
]

_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """The memory effects of one function, by parameter position."""

    name: str
    writes: frozenset[int]  # pointer parameters written through
    reads: frozenset[int]  # pointer parameters read through
    globals_read: frozenset[str]


def _param_index(fn: Function) -> dict[str, int]:
    return {p.name: i for i, p in enumerate(fn.params)}


def _pointer_params(fn: Function) -> set[str]:
    """Parameters that reach memory: pointers, and those the body indexes.

    `real3 a` (a typedef of `double[3]`) is a pointer though its declaration
    shows none: `a[0] = 0.0` writes the caller's memory.
    """
    names = {p.name for p in fn.params}
    through = {
        base_name(r.name) for r in fn.refs if r.subscripts or r.deref or "->" in r.name
    }
    return {p.name for p in fn.params if p.is_array} | (through & names)


def summarize(
    name: str,
    source: SourceFile,
    pure: frozenset[str],
    memo: dict[str, Summary | None] | None = None,
    program: ProgramSummaries | None = None,
    arity: int | None = None,
) -> Summary | None:
    """The summary of the function `name` of `source`; None when it has other effects.

    `pure` names library functions without side effects. A function the file
    does not define comes from `program` (the other files), then the table of
    library effects; a name the program defines twice stays unknown. `arity`,
    the call's number of arguments, picks one of the file's overloads of `name`
    when it fits only one; otherwise the summary is that of all of them.
    """
    memo = {} if memo is None else memo
    chosen = called_definition(name, arity, source)
    key = name if chosen is None else f"{name}/{chosen.span.start_byte}"
    if key in memo:
        return memo[key]
    memo[key] = None  # recursion: a function in a cycle is not summarised
    if chosen is None and len(definitions(name, source)) > 1:
        memo[key] = _every_definition(name, source, pure, memo, program)
        return memo[key]
    fn = chosen or source.function(name)
    if fn is not None and not takes(fn, arity, source):
        return None  # another overload runs, one the file does not define
    if fn is None and source.headers is not None and source.headers.function(name):
        # A `static inline` function of a project header: what this file compiles.
        del memo[key]
        return summarize(name, source.headers, pure, memo, program, arity)
    if fn is None:
        memo[key] = _external_summary(name, program)
        return memo[key]
    if fn.exits and any(e.kind.value == "exit" for e in fn.exits):
        return None
    if has_static(fn, source) or unread_part(fn, source) is not None:
        return None
    params = _param_index(fn)
    addresses = integer_addresses(fn, source)
    if addresses.others:
        return None  # an integer local or global turned into an address
    pointers = _pointer_params(fn) | addresses.params
    local = {v.name for v in fn.locals}
    # Local pointers may point anywhere (into a parameter's object, a global):
    # only local arrays and fresh allocations are the function's own memory.
    own = {v.name for v in fn.locals if (v.dims and not v.pointers) or v.fresh}
    # Other local pointers: passing one on hands the callee memory of unknown owner.
    wild_pointers = {v.name for v in fn.locals if v.pointers and v.name not in own}
    globals_ = {g.name for g in source.globals} - local - set(params)
    writes: set[int] = set()
    reads: set[int] = set()
    wild = False
    cast_globals: set[str] = set()  # `*(double *)gp`: read through a global
    for ref in fn.refs:
        base = base_name(ref.name)
        through = bool(ref.subscripts) or ref.deref or "->" in ref.name
        if ref.escapes and through and ref.kind.value == "update":
            continue  # `&p[k]` only takes an address: where it goes is tracked
        if through and ("(" in base or "*" in base):
            # `*(double *)addr`, `((T *)(x + k))[j]`: memory an expression reaches.
            if ref.is_write:
                return None
            names = set(_NAME.findall(base))
            if names & (local - own) or not names & (pointers | own | globals_):
                reads |= {params[p] for p in pointers}  # reaches what a local may
                wild = True
            reads |= {params[n] for n in names & pointers}
            cast_globals |= names & globals_
            continue
        if base in local and through and base not in own:
            if ref.is_write:
                return None  # writes through a pointer that may point anywhere
            # A read through a local pointer reads what the parameters or the
            # globals reach: count it as reading all of them.
            reads |= {params[p] for p in pointers}
            wild = True
            continue
        if base in pointers and not through and ref.is_write:
            return None  # a re-pointed parameter may point anywhere
        if base in globals_:
            if ref.is_write:
                return None  # shared state
            continue
        if ref.is_write and base not in local and base not in params:
            return None  # a name declared nowhere here (a system header's): global
        if base in pointers and through:
            (writes if ref.is_write else reads).add(params[base])
            if ref.is_write and ref.is_read:
                reads.add(params[base])
    globals_read = {
        base for r in fn.refs if r.is_read and (base := base_name(r.name)) in globals_
    }
    globals_read |= cast_globals
    if wild:
        globals_read |= globals_
    for call in fn.call_sites:
        if call.name in pure:
            continue
        callee = summarize(call.name, source, pure, memo, program, len(call.args))
        if callee is None or callback_reason(call, source, pure, program):
            return None
        effects = (callee.writes, callee.reads)
        mapped = map_call(
            call, effects, params, pointers, local - wild_pointers, globals_
        )
        if mapped is None:
            return None
        writes |= mapped[0]
        reads |= mapped[1]
        globals_read |= mapped[2]
        globals_read |= callee.globals_read
        globals_read |= callback_globals(call, source, pure, program)
    found = Summary(
        name=name,
        writes=frozenset(writes),
        reads=frozenset(reads),
        globals_read=frozenset(globals_read),
    )
    memo[key] = found
    return found


def _every_definition(
    name: str,
    source: SourceFile,
    pure: frozenset[str],
    memo: dict[str, Summary | None],
    program: ProgramSummaries | None,
) -> Summary | None:
    """What any of the definitions of `name` may do (C++ overloads, #if branches).

    Which one runs is not resolved: each is summarised alone, and the call may
    write or read through any argument one of them does. None if one has no
    summary.
    """
    found: list[Summary] = []
    for one in (f for f in source.functions if f.name == name):
        # The file as if `one` were the only definition; a name already being
        # summarised stays so (recursion), each view fixes one more name.
        view = replace(
            source,
            functions=tuple(f for f in source.functions if f.name != name or f is one),
            _by_name={},
        )
        inner = {k: v for k, v in memo.items() if k != name}
        summary = summarize(name, view, pure, inner, program)
        if summary is None:
            return None
        found.append(summary)
    return Summary(
        name=name,
        writes=frozenset().union(*(s.writes for s in found)),
        reads=frozenset().union(*(s.reads for s in found)),
        globals_read=frozenset().union(*(s.globals_read for s in found)),
    )


def callback_reason(
    call: Call,
    source: SourceFile,
    pure: frozenset[str],
    program: ProgramSummaries | None,
) -> str | None:
    """Why the functions a library call calls back (`qsort`'s `cmp`) are unsafe.

    None when each is a function whose summary writes nothing.
    """
    known = library_function(call.name) if source.function(call.name) is None else None
    for index in known.calls if known is not None else ():
        arg = call.args[index].strip() if index < len(call.args) else ""
        name = arg.lstrip("&").strip()
        if not _NAME.fullmatch(name):
            return (
                f"which calls back `{arg or '?'}`, a function the analysis cannot name"
            )
        if name in pure:
            continue
        callee = summarize(name, source, pure, None, program)
        if callee is None or callee.writes:
            return f"which calls back `{name}()`, which has effects of its own"
    return None


def callback_globals(
    call: Call,
    source: SourceFile,
    pure: frozenset[str],
    program: ProgramSummaries | None,
) -> frozenset[str]:
    """The globals the functions a library call calls back read (`cmp` of `qsort`).

    `qsort(.., cmp)` runs `cmp` within the call: what `cmp` reads, the call reads.
    """
    known = library_function(call.name) if source.function(call.name) is None else None
    out: set[str] = set()
    for index in known.calls if known is not None else ():
        name = (
            call.args[index].strip().lstrip("&").strip()
            if index < len(call.args)
            else ""
        )
        callee = summarize(name, source, pure, None, program) if name else None
        if callee is not None:
            out |= callee.globals_read
    return frozenset(out)


def _external_summary(name: str, program: ProgramSummaries | None) -> Summary | None:
    """The summary of a function the file lacks: another file's, else the table's."""
    if program is not None and program.lookup(name):
        found = program.only(name)
        return found.summary if found is not None else None
    return _library_summary(name)


def _library_summary(name: str) -> Summary | None:
    """The summary the table of library effects gives a function the file lacks."""
    known = library_function(name)
    if known is None or known.format >= 0:  # a format's: variadic_calls, per call
        return None
    if known.effect in (Effect.IO, Effect.HIDDEN, Effect.THREAD) or known.device:
        return None  # or device memory (`acc_malloc`): a host loop must not touch it
    return Summary(
        name=name,
        writes=frozenset(known.writes),
        reads=frozenset(known.reads),
        globals_read=frozenset(),
    )


_LIBRARY_WHY = {
    Effect.IO: "which does I/O",
    Effect.HIDDEN: "which keeps hidden state",
    Effect.THREAD: "whose value depends on the thread or the time",
}


def unsummarised_reason(
    name: str,
    source: SourceFile,
    pure: frozenset[str],
    program: ProgramSummaries | None = None,
) -> str:
    """Why the function `name` of `source` has no summary, as "which ..." text."""
    fn = source.function(name)
    if fn is None and source.headers is not None and source.headers.function(name):
        return unsummarised_reason(name, source.headers, pure, program)
    if fn is None:
        return "whose side effects are unknown"
    if any(e.kind.value == "exit" for e in fn.exits):
        return "which can end the program (`exit`)"
    if has_static(fn, source):
        return "which keeps a `static` variable between calls"
    unread = unread_part(fn, source)
    if unread is not None:
        return (
            f"whose body does not parse whole (line {unread.line}, a syntax error "
            "or a statement macro with a block): what it writes is unknown"
        )
    others = integer_addresses(fn, source).others
    if others:
        return (
            f"which turns the integer `{others[0]}` into a pointer: the memory "
            "it reaches is unknown"
        )
    local = {v.name for v in fn.locals} | {p.name for p in fn.params}
    globals_ = {g.name for g in source.globals} - local
    written = [
        base_name(r.name)
        for r in fn.refs
        if r.is_write and base_name(r.name) in globals_
    ]
    if written:
        return f"which writes the global `{written[0]}`"
    for call in fn.call_sites:
        if call.name in pure or call.name == name:
            continue
        callback = callback_reason(call, source, pure, program)
        if callback is not None:
            return f"which calls `{call.name}()`, {callback}"
        if summarize(call.name, source, pure, None, program, len(call.args)):
            continue
        header = source.headers.function(call.name) if source.headers else None
        if header is not None and source.headers is not None:
            place = source.headers.place(header.span.line)
            why = unsummarised_reason(call.name, source.headers, pure, program)
            return f"which calls `{call.name}()` ({place}), {why}"
        known = library_function(call.name)
        if source.function(call.name) is None and known is not None:
            why = _LIBRARY_WHY.get(known.effect, "which has effects of its own")
            return f"which calls `{call.name}()`, {why}"
        if source.function(call.name) is None and (
            program is None or not program.lookup(call.name)
        ):
            return f"which calls `{call.name}()`, whose side effects are unknown"
        return f"which calls `{call.name}()`, which has other effects"
    if any(c.name == name for c in fn.call_sites):
        return "which calls itself (recursion is not summarised)"
    return "which writes through a pointer whose target the analysis cannot place"
