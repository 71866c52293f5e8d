"""Offloading a host loop whose data the user's own directives hold on the device.

A data clause on data the device already holds moves nothing (present-or
semantics): a `declare`d global, an array between the user's `enter data` and
`exit data`, or one of the user's `data` region. The user keeps the two copies
coherent with `update`s, and a host loop there reads and writes the host copy.
Offloaded, it would read the device copy, which may be older than the host's
(`create`, or host writes since), and write the device copy, which the host
then never sees, or which a later `update device` overwrites with the host's
older values. The results change.

So an offloaded loop touching such data is refused unless this is proved, in
the loop's own function, between the directive that starts the hold and the
one that ends it (`exit data`, or the end of the `data` construct's block):

- nothing but the loop names the array there (no host access, no `update`, no
  other kernel), no call runs there, no pointer copies or takes its address in
  the function, and no `return`, `goto` or `exit` leaves between;
- the device copy is the host's when the loop starts: the hold copies it in,
  or the loop reads none of it and writes every element the hold covers;
- what the loop writes goes back to the host where the hold ends (`copyout`,
  `copy`, `map(from:)`, `map(tofrom:)`).

A `declare`d array (`declared_data`: OpenMP `declare target` lists and blocks
too) is held for the whole program, or its function: always refused. So is a
global a hold names in another function, which this module cannot follow, a
scalar a hold or a `declare` names (`held_scalars`), and a pointer parameter a
caller of the file holds around the call unless that hold is proved the same
way (`caller_holds`), or a caller in another file holds with no such proof
recorded in the workspace index (`remote_holds`), and an array the runtime's
data routines (`acc_copyin()`, ...) may hold, unless `runtime_events` reads
the calls as directives of the loop's function (`runtime_holds`). Fortran has
no such proof: `fortran_holds` refuses instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis import FileAnalysis
from accls.analysis.access_paths import base_name
from accls.analysis.array_sections import ArrayUse, loop_array_uses
from accls.frontend import Loop
from accls.suggest.caller_holds import caller_holds
from accls.suggest.declared_data import Declared, declared_in
from accls.suggest.fortran_holds import fortran_held_refusals
from accls.suggest.held_proof import held
from accls.suggest.held_refusal import offloaded_nest, refused_in
from accls.suggest.held_round import HeldRound
from accls.suggest.held_scalars import held_scalar
from accls.suggest.held_spans import held_elsewhere
from accls.suggest.remote_holds import remote_refusals
from accls.suggest.runtime_holds import runtime_data_calls, runtime_refusals
from accls.suggest.suggestion import Suggestion

__all__ = ["held_refusals"]

_ELSEWHERE = (
    "`{name}` is held on the device by a data directive of another function: "
    "offloaded, the loop may use a device copy the host's does not match"
)


def held_refusals(
    analysis: FileAnalysis, found: Sequence[Suggestion]
) -> list[Suggestion]:
    """`found`, with offloaded nests that would bypass the user's holds refused.

    The other offloaded nests are device code: what they touch stays coherent
    on the device. Refusing one makes it host code again, so this runs until
    nothing changes. Loops inside a refused nest are refused with it.
    """
    source = analysis.source
    out = list(found)
    if source.language == "fortran":
        return fortran_held_refusals(analysis, out)
    if source.language != "c" or not (
        any(w in source.data for w in (b"declare", b"enter", b"data"))
        or (source.headers is not None and b"declare" in source.headers.data)
        or _held_elsewhere(analysis)
        or runtime_data_calls(analysis)
    ):
        return out
    while True:
        device = [s for s in out if offloaded_nest(s)]
        refused: dict[int, tuple[str, ...]] = {}
        rounds: dict[str, HeldRound] = {}
        for s in device:
            sentinel = s.options.dialect.sentinel
            if sentinel not in rounds:
                rounds[sentinel] = HeldRound(analysis, sentinel, device)
            why = _why(s.loop, rounds[sentinel])
            if why:
                refused[s.loop.id] = why
        if not refused:
            return out
        spans = [
            (s.loop.span.start_byte, s.loop.span.end_byte, refused[s.loop.id])
            for s in device
            if s.loop.id in refused
        ]
        out = [refused_in(s, spans) for s in out]


def _held_elsewhere(analysis: FileAnalysis) -> bool:
    """Whether another file's call of a function of this file holds an argument."""
    program = analysis.program
    calls = None if program is None else program.calls
    return calls is not None and any(
        call.holds
        for fn in analysis.source.functions
        for _, call in calls.calls_of(fn.name)
    )


def _why(loop: Loop, round_: HeldRound) -> tuple[str, ...]:
    """Why offloading `loop` would bypass the user's own device copies (empty: fine).

    The scene blanks `loop` with the function's other device code: the proof
    reads only what lies outside it.
    """
    analysis, sentinel = round_.analysis, round_.sentinel
    source = analysis.source
    fn = source.function(loop.function) if loop.function else None
    if fn is None or loop.fortran:
        return ()
    here = round_.scene(fn)
    declared = declared_in(analysis, sentinel, fn)
    out: list[str] = []
    clear: list[ArrayUse] = []  # the uses no hold of the function bars
    uses = loop_array_uses(loop, analysis)
    for use in uses:
        if use.name in declared:
            out.append(_declared_why(declared[use.name]))
            continue
        site = (loop.span.start_byte, loop.span.end_byte, loop.keyword.line)
        why = held(analysis, fn, site, use, here)
        if (
            why is None
            and fn.lookup(base_name(use.name)) is None
            and held_elsewhere(analysis, fn, use.name, sentinel)
        ):
            why = _ELSEWHERE.format(name=use.name)
        if why is not None:
            out.append(why)
        else:
            clear.append(use)
    out += caller_holds(fn, clear, round_)
    kernel = round_.index.is_kernel(fn.name)
    out += remote_refusals(analysis, fn, clear, sentinel, kernel)
    out += runtime_refusals(
        analysis, fn, clear, (loop.span.start_byte, here.directives), sentinel
    )
    arrays = {u.name for u in uses}
    for name in sorted({r.name for r in loop.refs} - arrays):
        if name in declared:
            out.append(_declared_why(declared[name]))
        elif why := held_scalar(analysis, loop, name, here.directives):
            out.append(why)
        elif fn.lookup(name) is None and held_elsewhere(
            analysis, fn, name, sentinel, scalar=True
        ):
            out.append(_ELSEWHERE.format(name=name))
    return tuple(out)


def _declared_why(held: Declared) -> str:
    where = "the whole program" if held.function is None else "its function"
    at = held.place or f"line {held.line}"
    return (
        f"`{held.name}` is on the device for {where} (`declare` at {at}): "
        "offloaded, the loop would use the device copy, which your "
        "`update`s keep apart from the host's"
    )
