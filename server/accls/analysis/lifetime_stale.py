"""ACC210: while `enter data` holds an array, one side reads what the other changed.

`#pragma acc enter data copyin|create(a[0:n])` (`omp target enter data
map(to|alloc:)`) gives the device its own copy of `a` until the `exit data`
that names it (or the function's end). A kernel's write reaches the host only
through `update self` (`target update from`); a host write reaches the device
only through `update device` (`target update to`). The function's direct
references between the two are read in source order, as ACC207 reads a data
region's: a host read after a kernel write, or a kernel read after a host
write, with no update between, reads the old copy.

What the check does not follow counts as a sync: a call the array is passed to
(a kernel function, an update through the runtime), and another `enter` or
`exit data` of it. A lifetime whose `enter` and `exit` lie in different blocks
(one in a branch or a loop the other is not in), an `enter data` with an `if`
clause, or a device construct over a block rather than a loop (`serial { .. }`)
in the lifetime is skipped.
"""

from __future__ import annotations

import re

from accls.analysis.analyze import FileAnalysis
from accls.analysis.data_clauses import transfer_kinds
from accls.analysis.data_kinds import STALE_IN_LIFETIME
from accls.analysis.device_coherence import function_directives, unseen_device_code
from accls.analysis.device_constructs import runs_on_device
from accls.analysis.device_stale import stale_reads
from accls.analysis.findings import Finding
from accls.analysis.pragma_scope import list_names
from accls.frontend import Directive, Function, Span

__all__ = ["lifetime_stale_findings"]

_ENTER = frozenset({"enter data", "target enter data"})
_EXIT = frozenset({"exit data", "target exit data"})
_SENDS = frozenset({"copyin", "create"})  # the kinds an `enter` gives the device
_QUIET = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)
_MOVES = frozenset({"delete", "copyout", "pcopyout", "present_or_copyout", "detach"})
_WORD = re.compile(r"[A-Za-z_]\w*")


def lifetime_stale_findings(analysis: FileAnalysis, sentinel: str) -> list[Finding]:
    """ACC210 for each array one side reads stale while an `enter data` holds it."""
    source = analysis.source
    if b"enter" not in source.data:
        return []
    out: list[Finding] = []
    for fn in source.functions:
        directives = function_directives(source, fn, sentinel)
        if not any(d.name in _ENTER for _, d in directives):
            continue
        # Device code the check cannot place: a construct over a block, or
        # one whose `if` clause may run it on the host.
        unseen = [pos for pos, _ in unseen_device_code(analysis, fn, directives)]
        unseen += [
            pos
            for pos, d in directives
            if d.clause("if") is not None and runs_on_device(d)
        ]
        for at, directive in directives:
            if directive.name not in _ENTER or directive.clause("if") is not None:
                continue
            for name, end in _lifetimes(source.data, fn, at, directive, directives):
                if any(at <= pos < end for pos in unseen):
                    continue
                assert directive.span is not None  # function_directives sets it
                span = Span(at, end, directive.span.start, directive.span.end)
                unknown = _unknown(fn, directives, name, (at, end))
                out += stale_reads(
                    analysis,
                    fn,
                    directive,
                    span,
                    {name},
                    directives,
                    sentinel,
                    kind=STALE_IN_LIFETIME,
                    unknown=unknown,
                )
    # Nested `enter data` of one array (reference counts) read the same events.
    firsts: dict[int, Finding] = {}
    for f in out:
        firsts.setdefault(f.span.start_byte, f)
    return list(firsts.values())


def _lifetimes(
    data: bytes,
    fn: Function,
    at: int,
    enter: Directive,
    directives: list[tuple[int, Directive]],
) -> list[tuple[str, int]]:
    """Each array the `enter` gives the device, and where its lifetime ends here."""
    out: list[tuple[str, int]] = []
    for name, kind in transfer_kinds(enter).items():
        if kind not in _SENDS:
            continue
        ends = [
            pos
            for pos, d in directives
            if pos > at and d.name in _EXIT and name in _named(d)
        ]
        end = min(ends) if ends else fn.span.end_byte - 1
        if _balanced(data, at, end):
            out.append((name, end))
    return out


def _balanced(data: bytes, start: int, end: int) -> bool:
    """The braces between the offsets close all they open and no more."""
    depth = 0
    for ch in _QUIET.sub(b"", data[start:end]):
        depth += (ch == 0x7B) - (ch == 0x7D)
        if depth < 0:
            return False
    return depth == 0


def _unknown(
    fn: Function,
    directives: list[tuple[int, Directive]],
    name: str,
    within: tuple[int, int],
) -> list[tuple[int, str]]:
    """Where a call the array is passed to, or another `enter`/`exit`, may sync it."""
    start, end = within
    deepest = max(
        (len(r.subscripts) + int(r.deref) for r in fn.refs if r.name == name),
        default=0,
    )
    found = [
        (call.span.start_byte, name)
        for call in fn.call_sites
        if start < call.span.start_byte < end
        and any(_passes(arg, name, deepest) for arg in call.args)
    ]
    found += [
        (pos, name)
        for pos, d in directives
        if start < pos < end and d.name in _ENTER | _EXIT and name in _named(d)
    ]
    return found


def _passes(arg: str, name: str, deepest: int) -> bool:
    """The argument passes the array or a row of it, not one element's value.

    `a`, `a + k`, `&a[k]`, `c[x]` of a table pass it; `a[k]` does not.
    """
    if name not in _WORD.findall(arg):
        return False
    if "&" in arg:
        return True
    after = re.search(r"\b" + re.escape(name) + r"\b((?:\s*\[[^\]]*\])*)", arg)
    return after is None or after.group(1).count("[") < deepest


def _named(directive: Directive) -> set[str]:
    """The arrays an `enter`/`exit data` names (`delete(a)`, `map(release: a)`)."""
    names = set(transfer_kinds(directive))
    for clause in directive.clauses:
        args = clause.args or ""
        if clause.name == "map" and ":" in args.split("[")[0]:
            args = args.split(":", 1)[1]
        elif clause.name not in _MOVES:
            continue
        names.update(list_names(args))
    return names
