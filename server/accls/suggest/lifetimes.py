"""Device data lifetimes across functions: `enter data` ... `exit data` in the caller.

A solver that calls its kernel functions in a loop moves every array at every call.
Here the function that owns the arrays (allocates them, or a global's user) keeps
them on the device from its first device event (an offloaded loop, or a call to a
kernel function) to its last:

    #pragma acc enter data copyin(u[0:n]) create(r[0:n])
    for (it = 0; it < steps; it++) { axpy(n, a, r, u); ... }
    #pragma acc exit data copyout(u[0:n]) delete(r[0:n])

and host code in between that touches them gets `update self` before it (and
`update device` after it, when it writes). The kernels' own clauses stay correct
(OpenACC's copy clauses and OpenMP's maps find present data and move nothing);
where every call of a kernel lies in a lifetime they become `present`.

A lifetime is proposed only when it is provably the same program: the arrays are
the function's own (fresh allocations, local or global arrays, nothing else points
into them), neither the pointers nor their sections' symbols change in between, no
return or exit leaves in between, both ends run once, unconditionally, and every
host access has a statement line to put its update on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse, plain_names, union_section
from accls.frontend import Function, Span
from accls.suggest.host_sections import holds_all, host_uses, update_section
from accls.suggest.lifetime_bytes import Moved, moved_bytes
from accls.suggest.lifetime_owners import COMMENTS, own_array
from accls.suggest.lifetime_places import Places
from accls.suggest.lifetime_uses import KernelIndex, inside
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Target
from accls.suggest.suggestion import Suggestion

__all__ = ["DeviceLifetime", "Kept", "Update", "propose_lifetimes"]

_JUMPS = re.compile(rb"\b(?:switch|goto|setjmp|longjmp)\b")


@dataclass(frozen=True, slots=True)
class Kept:
    """One array kept on the device: its section and how it enters and leaves."""

    name: str
    section: str  # `u[0:n]`, or `u` for a whole static array
    enter: str  # "copyin" or "create"
    exit: str  # "copyout" or "delete"


@dataclass(frozen=True, slots=True)
class Update:
    """An `update self` (before) or `update device` (after) at a host statement."""

    offset: int  # where the line goes: a line start, or a statement's end
    after: bool  # True: after the statement (a new line follows its end)
    direction: str  # "self" or "device"
    sections: tuple[str, ...]
    line: int  # the statement's line
    start: int  # the statement's line start (its indentation is the update's)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceLifetime:
    """Arrays kept on the device across one function's kernels and calls."""

    dialect: Dialect
    function: str
    kept: tuple[Kept, ...]
    enter: int  # line start where `enter data` goes
    exit: int  # statement end after which `exit data` goes
    exit_pad: int  # the last statement's line start: `exit data` takes its indentation
    enter_line: int
    exit_line: int
    updates: tuple[Update, ...]
    kernels: tuple[str, ...]  # kernel functions called in between
    events: tuple[Span, ...]
    moved: Moved
    reasons: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The arrays it keeps."""
        return tuple(k.name for k in self.kept)

    @property
    def title(self) -> str:
        """`Keep `u`, `r` on the device from line 40 to line 52`."""
        names = ", ".join(f"`{n}`" for n in self.names)
        around = (
            f"across {', '.join(f'`{k}()`' for k in self.kernels)}"
            if self.kernels
            else f"from line {self.enter_line} to line {self.exit_line}"
        )
        return f"Keep {names} on the device in `{self.function}()` {around}"


def propose_lifetimes(
    analysis: FileAnalysis, suggestions: Sequence[Suggestion], opts: SuggestOptions
) -> tuple[DeviceLifetime, ...]:
    """The device lifetimes of the file, given the pragmas to be inserted."""
    if opts.dialect is Dialect.OPENMP and opts.target is not Target.GPU:
        return ()
    tops = [
        s
        for s in suggestions
        if s.pragma is not None
        and s.existing is None
        and not s.inner
        and s.offloaded
        and s.options.dialect is opts.dialect
    ]
    dialect = "acc" if opts.dialect is Dialect.OPENACC else "omp"
    index = KernelIndex(analysis, tops, dialect)
    called = {c for fn in analysis.source.functions for c in fn.calls}
    out: list[DeviceLifetime] = []
    for fn in analysis.source.functions:
        if index.is_kernel(fn.name) and fn.name in called:
            continue  # its callers keep the data
        found = _lifetime(analysis, index, fn, opts)
        if found is not None:
            out.append(found)
    return tuple(out)


def _lifetime(
    analysis: FileAnalysis, index: KernelIndex, fn: Function, opts: SuggestOptions
) -> DeviceLifetime | None:
    source = analysis.source
    if any(d.dialect in ("acc", "omp") for d in fn.pragmas):
        return None
    body = COMMENTS.sub(b" ", source.data[fn.span.start_byte : fn.span.end_byte])
    if _JUMPS.search(body):
        return None  # a `case` or a label could enter between the two ends
    nests = [n for n in source.nests if n.function == fn.name]
    if any(inner.pragmas or inner.regions for n in nests for inner in n.walk()):
        return None  # the user's own directives: leave the function alone
    events = index.events(fn)
    if not events:
        return None
    own_run = not any(e.call for e in events)
    if own_run and len(events) < 2:
        return None  # one loop moves its own data
    arms = [
        b.span
        for b in source.branches
        if b.kind in ("if", "else") and inside(b.span, fn.span)
    ]
    within = [a for a in arms if all(inside(e.span, a) for e in events)]
    places = Places(source, fn, within)
    bounds = [places.event_statement(e.span) for e in events]
    if any(b is None for b in bounds):
        return None
    starts = [b[0] for b in bounds if b is not None]
    ends = [b[1] for b in bounds if b is not None]
    first, last = min(starts), max(ends)
    exit_pad = starts[ends.index(last)]
    if any(first <= e.span.start_byte < last for e in fn.exits):
        return None  # a return in between would skip `exit data`
    repeated = any(places.in_loop(e.span, first, last) for e in events)
    regions = [t.region for t in index.tops(fn.name) if t.region is not None]
    if own_run and regions and (not repeated or any(r.around for r in regions)):
        # One function's run of loops: the data region's business, unless a
        # sequential loop repeats its kernels and the region, held inside that
        # loop by its host code, moves the arrays on every trip.
        return None
    by_name: dict[str, list[ArrayUse]] = {}
    for event in events:
        for use in event.uses:
            by_name.setdefault(use.name, []).append(use)
    spans = [e.span for e in events]
    kept: list[Kept] = []
    updates: dict[tuple[int, bool, str], list[str]] = {}
    lines: dict[tuple[int, bool, str], tuple[int, int]] = {}
    for name, uses in sorted(by_name.items()):
        if not own_array(fn, name, analysis, index):
            continue
        section, known = union_section(uses)
        if not known:
            continue
        boxes = [pair for use in uses for pair in use.box or ()]
        symbols = plain_names({n for pair in boxes for p in pair for n in p.names()})
        if places.written(first, last, {name} | symbols):
            continue  # the pointer or its extent changes in between
        host = places.host_accesses(name, first, last, spans, index)
        if host is None:
            continue  # a host access with no line for its update
        written = any(u.written for u in uses)
        item = section or name
        # What the host code at each update touches, None once any is unknown.
        touched: dict[tuple[int, bool, str], list[ArrayUse] | None] = {}
        for where in host:
            seen = host_uses(where, name, fn, analysis, places)
            keys = [(where.before, False, "self")] if written else []
            keys += [(where.after, True, "device")] if where.write else []
            for key in keys:
                had = touched.get(key, [])
                touched[key] = None if had is None or seen is None else [*had, *seen]
                lines[key] = (where.line, where.before)
        for key, found in touched.items():
            narrow = update_section(item, uses, found, holds_all(name, section, fn))
            updates.setdefault(key, []).append(narrow)
        head = uses[0]
        # The first event writes every element before any read: nothing to copy
        # in, unless host code may touch the array before it runs (earlier, or
        # on a later trip of a loop that holds both).
        opener = next(
            k for k, e in enumerate(events) if any(u.name == name for u in e.uses)
        )
        opened = ends[opener]
        used_after = places.used_after(name, last)
        looped = places.in_loop(events[opener].span, first, last)
        create = (
            all(where.before >= opened for where in host)
            # a loop of zero trips would leave `create`d garbage for copyout
            and not ((host or used_after) and looped)
            and head.written
            and head.exact_cover
            and not head.read_first
            # spelled alike (the head's own may leave out a clamp its loop proves)
            and (section is None or section == union_section([head])[0])
        )
        kept.append(
            Kept(
                name,
                item,
                "create" if create else "copyin",
                "copyout" if written and used_after else "delete",
            )
        )
    if not kept:
        return None
    names = {k.name for k in kept}
    if not repeated and not any(
        sum(1 for e in events for u in e.uses if u.name == n) > 1 for n in names
    ):
        return None  # each array moves once anyway: nothing to save
    moved = moved_bytes(analysis, fn, events, kept, places, updates, (first, last))
    if moved.saves is False:
        return None  # the updates move more than the kernels did
    kernels = tuple(dict.fromkeys(e.call for e in events if e.call))
    update_list = tuple(
        Update(offset, after, direction, tuple(dict.fromkeys(items)), *lines[key])
        for key, items in sorted(updates.items())
        for offset, after, direction in [key]
    )
    enter_line = source.data.count(b"\n", 0, first) + 1
    exit_line = source.data.count(b"\n", 0, last) + 1
    reasons = [
        f"`{', '.join(sorted(names))}` stay on the device from line {enter_line} to "
        f"line {exit_line} of `{fn.name}()`"
        + (
            f", across the calls of {', '.join(f'`{k}()`' for k in kernels)}"
            if kernels
            else ""
        ),
        *(
            f"{k.enter}({k.section}) on entry: "
            + (
                "fully written on the device before any read"
                if k.enter == "create"
                else "the device reads the host's values"
            )
            + f"; {k.exit} on exit: "
            + (
                "the host reads the results later"
                if k.exit == "copyout"
                else "nothing on the host reads them later"
            )
            for k in kept
        ),
        *(
            f"update {u.direction}({', '.join(u.sections)}) "
            + ("before" if not u.after else "after")
            + f" line {u.line}: host code there "
            + (
                "reads what the device wrote"
                if u.direction == "self"
                else "writes what the device reads"
            )
            for u in update_list
        ),
        moved.reason,
    ]
    return DeviceLifetime(
        dialect=opts.dialect,
        function=fn.name,
        kept=tuple(kept),
        enter=first,
        exit=last,
        exit_pad=exit_pad,
        enter_line=enter_line,
        exit_line=exit_line,
        updates=update_list,
        kernels=kernels,
        events=tuple(spans),
        moved=moved,
        reasons=tuple(reasons),
    )
