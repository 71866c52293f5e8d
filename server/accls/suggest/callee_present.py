"""`present` in a kernel function whose every call runs where the caller holds its data.

A function whose offloaded loops move its pointer parameters (`copyin(a[0:n])`)
is, in many programs, called only inside a `#pragma acc data` region of its
caller that already holds those arrays. The copy clauses are then correct
(present-or semantics: the runtime finds the data and moves nothing), but an
expert writes `present(a[0:n])`, which says so. It is written only when the
file shows every call, each inside a data region that holds a section covering
what the call touches; else a call from elsewhere would find the data absent,
and `present` would stop the program where the copy clause moves the data.

Every call is known when the function is `static`, or when an index of the whole
program shows no other file calling it; its name must appear in no other role
(a function pointer could call it from anywhere), and the caller must be read
whole (the command line's file, not an editor's slice of one function).
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse, loop_array_uses
from accls.analysis.data_clauses import clause_sections
from accls.analysis.device_coherence import data_regions
from accls.frontend import Call, Directive, Function, Span
from accls.suggest.entered_present import entered_holds
from accls.suggest.lifetime_edits import present_clauses
from accls.suggest.lifetime_uses import KernelIndex, inside
from accls.suggest.pragma import Dialect
from accls.suggest.region_present import covers_use
from accls.suggest.remote_holds import remote_calls, remote_present
from accls.suggest.suggestion import Suggestion

__all__ = ["callee_present", "new_acc_kernels", "only_called_here"]

# Clauses that put the array itself in the present table (not `deviceptr`).
_HOLDS = frozenset(
    {"copy", "copyin", "copyout", "create", "present"}
    | {"pcopy", "pcopyin", "pcopyout", "pcreate"}
    | {"present_or_copy", "present_or_copyin", "present_or_copyout"}
    | {"present_or_create"}
)


def only_called_here(
    fn: Function, analysis: FileAnalysis, *, elsewhere: bool = False
) -> bool:
    """True when the file shows every call of `fn`: no other file, no pointer.

    `elsewhere`: the other files' calls are checked apart (`remote_present`).
    """
    program = analysis.program
    if (
        not fn.static
        and not elsewhere
        and not (
            program is not None
            and program.whole
            and program.complete
            and fn.name not in program.called
        )
    ):
        return False
    code = analysis.source.code
    word = r"\b" + re.escape(fn.name) + r"\b"
    if re.search(r"^[ \t]*#.*" + word, code, re.MULTILINE):
        return False  # a macro may call it where the analysis sees no call
    # Each mention of the name is a call, the definition or a prototype.
    return len(re.findall(word, code)) == len(re.findall(word + r"\s*\(", code))


def _regions(analysis: FileAnalysis, caller: Function) -> list[tuple[Directive, Span]]:
    """The caller's `acc data` regions: around loops, and on a loop itself."""
    found = list(data_regions(analysis, caller, "acc"))
    for nest in analysis.source.nests:
        if nest.function != caller.name:
            continue
        for loop in nest.walk():
            found += [
                (d, loop.span)
                for d in loop.pragmas
                if d.dialect == "acc" and d.name == "data"
            ]
    return found


def _held(use: ArrayUse, call: Call, caller: Function, analysis: FileAnalysis) -> bool:
    """True when a data region, or an `enter data`, around the call holds `use`."""
    if entered_holds(analysis, caller, call.span, use, "acc"):
        return True
    for directive, span in _regions(analysis, caller):
        if not inside(call.span, span) or directive.clause("if") is not None:
            continue
        for section in clause_sections(directive):
            kind = section.clause.split("(", 1)[0].strip()
            if section.name == use.name and kind in _HOLDS and covers_use(section, use):
                return True
    return False


def _covered(
    fn: Function, analysis: FileAnalysis, index: KernelIndex, sentinel: str
) -> bool:
    source = analysis.source
    sites = [
        (caller, call)
        for caller in source.functions
        for call in caller.call_sites
        if call.name == fn.name
    ]
    remote = remote_calls(analysis, fn)
    if not (sites or remote) or (sites and sentinel != "acc"):
        return False  # the file's own OpenMP calls are not read here
    if not only_called_here(fn, analysis, elsewhere=bool(remote)):
        return False
    if remote and not _remote_covered(fn, analysis, index, sentinel):
        return False
    for caller, call in sites:
        if caller.name == fn.name:
            return False
        uses = index.call_uses(call, caller)
        if not uses or not all(_held(u, call, caller, analysis) for u in uses):
            return False
    return True


def _remote_covered(
    fn: Function, analysis: FileAnalysis, index: KernelIndex, sentinel: str
) -> bool:
    """Every other file's call holds what `fn`'s loops touch (parameters only)."""
    params = {p.name for p in fn.params}
    uses = [
        u for top in index.tops(fn.name) for u in loop_array_uses(top.loop, analysis)
    ]
    return (
        index.is_kernel(fn.name)
        and all(u.name in params for u in uses)
        and remote_present(analysis, fn, uses, sentinel)
    )


def new_acc_kernels(
    found: tuple[Suggestion, ...], dialect: Dialect = Dialect.OPENACC
) -> list[Suggestion]:
    """The outermost offloaded suggestions of `found` (OpenACC) that add a pragma."""
    return [
        s
        for s in found
        if s.pragma is not None
        and s.pragma.dialect is dialect
        and (dialect is Dialect.OPENACC or s.offloaded)
        and not s.inner
        and s.existing is None
    ]


def callee_present(
    analysis: FileAnalysis, found: tuple[Suggestion, ...], *, whole: bool
) -> tuple[Suggestion, ...]:
    """`found`, its kernel functions' copy clauses `present` where every call is held.

    `whole`: the analysis read the whole file (not an editor's slice of it).
    OpenMP target loops are rewritten only for calls from other files (no map:
    the data is found on the device, as `entered_present` writes).
    """
    if not whole:
        return found
    present: dict[int, frozenset[str]] = {}
    for dialect in (Dialect.OPENACC, Dialect.OPENMP):
        tops = new_acc_kernels(found, dialect)
        if tops:
            present |= _present(analysis, tops, dialect.sentinel)
    if not present:
        return found
    return tuple(
        replace(
            s,
            pragma=present_clauses(s.pragma, present[s.loop.id]),
            reasons=(*s.reasons, _reason(s.loop.function or "")),
        )
        if s.pragma is not None and s.loop.id in present and not s.inner
        else s
        for s in found
    )


def _present(
    analysis: FileAnalysis, tops: list[Suggestion], sentinel: str
) -> dict[int, frozenset[str]]:
    """The loops of `tops` whose every call is held, with the names held."""
    index = KernelIndex(analysis, tops, sentinel)
    present: dict[int, frozenset[str]] = {}
    for name in sorted({s.loop.function for s in tops if s.loop.function}):
        fn = analysis.source.function(name)
        if fn is None or not _covered(fn, analysis, index, sentinel):
            continue
        mine = index.tops(name)
        names = frozenset(
            u.name for top in mine for u in loop_array_uses(top.loop, analysis)
        )
        for top in mine:
            present[top.loop.id] = names
    return present


def _reason(name: str) -> str:
    return (
        f"present: every call of `{name}()` runs inside a data region (or after an "
        "`enter data`) that holds what the loop touches (the file, or the "
        "project's index, shows each call)"
    )
