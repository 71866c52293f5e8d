"""A lifetime as text: its directives, where they go, and `present` in the kernels."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import loop_array_uses
from accls.frontend import Clause
from accls.frontend.pragmas import clause_items
from accls.suggest.lifetime_uses import KernelIndex, inside
from accls.suggest.lifetimes import DeviceLifetime, Update
from accls.suggest.pragma import Dialect, Pragma
from accls.suggest.suggestion import Suggestion

__all__ = ["lifetime_edits", "lifetime_pragmas", "present_clauses", "with_present"]

_ACC_DATA = frozenset({"copy", "copyin", "copyout", "create"})
_OMP_KIND = {"copyin": "to", "create": "alloc", "copyout": "from", "delete": "release"}
_NAME = re.compile(r"[A-Za-z_]\w*")


def _clauses(dialect: Dialect, pairs: Sequence[tuple[str, str]]) -> tuple[Clause, ...]:
    """`copyin(a, b) create(c)` or `map(to: a, b) map(alloc: c)`, first seen first."""
    groups: dict[str, list[str]] = {}
    for kind, section in pairs:
        groups.setdefault(kind, []).append(section)
    if dialect is Dialect.OPENACC:
        return tuple(Clause(kind, ", ".join(items)) for kind, items in groups.items())
    return tuple(
        Clause("map", f"{_OMP_KIND[kind]}: {', '.join(items)}")
        for kind, items in groups.items()
    )


def lifetime_pragmas(lifetime: DeviceLifetime) -> tuple[Pragma, Pragma]:
    """The `enter data` and `exit data` directives."""
    acc = lifetime.dialect is Dialect.OPENACC
    enter = _clauses(lifetime.dialect, [(k.enter, k.section) for k in lifetime.kept])
    leave = _clauses(lifetime.dialect, [(k.exit, k.section) for k in lifetime.kept])
    return (
        Pragma(lifetime.dialect, "enter data" if acc else "target enter data", enter),
        Pragma(lifetime.dialect, "exit data" if acc else "target exit data", leave),
    )


def update_pragma(dialect: Dialect, update: Update) -> Pragma:
    """`update self(u[0:n])` or `target update from(u[0:n])`."""
    items = ", ".join(update.sections)
    if dialect is Dialect.OPENACC:
        return Pragma(dialect, "update", (Clause(update.direction, items),))
    way = "from" if update.direction == "self" else "to"
    return Pragma(dialect, "target update", (Clause(way, items),))


def _pad(data: bytes, offset: int) -> str:
    start = data.rfind(b"\n", 0, offset) + 1
    line = data[start:]
    return line[: len(line) - len(line.lstrip(b" \t"))].decode("utf-8", "replace")


def lifetime_edits(
    data: bytes, lifetimes: Sequence[DeviceLifetime], newline: str = "\n"
) -> list[tuple[int, int, str]]:
    """(byte offset, order at that offset, text) insertions of the lifetimes' lines.

    `enter data` and `update self` go before everything else at their line start;
    `exit data` and `update device` after everything that ends where they follow.
    """
    edits: list[tuple[int, int, str]] = []
    for lifetime in lifetimes:
        enter, leave = lifetime_pragmas(lifetime)
        pad = _pad(data, lifetime.enter)
        edits.append((lifetime.enter, -1, f"{pad}{enter.render()}{newline}"))
        closing = _pad(data, lifetime.exit_pad)
        edits.append((lifetime.exit, 3, f"{newline}{closing}{leave.render()}"))
        for update in lifetime.updates:
            text = update_pragma(lifetime.dialect, update).render()
            if update.after:
                line = _pad(data, update.start)
                edits.append((update.offset, 3, f"{newline}{line}{text}"))
            else:
                line = _pad(data, update.offset)
                edits.append((update.offset, -1, f"{line}{text}{newline}"))
    return edits


def present_clauses(pragma: Pragma, names: frozenset[str]) -> Pragma:
    """The pragma with its data clauses for `names` replaced by `present`."""
    kept: list[Clause] = []
    present: list[str] = []
    for clause in pragma.clauses:
        args = clause.args or ""
        if pragma.dialect is Dialect.OPENACC and clause.name in _ACC_DATA:
            head, items = "", clause_items(args)
        elif pragma.dialect is Dialect.OPENMP and clause.name == "map" and ":" in args:
            kind, rest = args.split(":", 1)
            head, items = f"{kind.strip()}: ", clause_items(rest)
        else:
            kept.append(clause)
            continue
        mine = [i for i in items if (m := _NAME.match(i)) and m.group(0) in names]
        others = [i for i in items if i not in mine]
        present.extend(mine)
        if others:
            kept.append(Clause(clause.name, head + ", ".join(others)))
    if present and pragma.dialect is Dialect.OPENACC:
        kept.append(Clause("present", ", ".join(present)))
    return replace(pragma, clauses=tuple(kept))


def with_present(
    analysis: FileAnalysis,
    suggestions: tuple[Suggestion, ...],
    lifetimes: Sequence[DeviceLifetime],
    named_elsewhere: frozenset[str] = frozenset(),
) -> tuple[Suggestion, ...]:
    """The suggestions, their kernels' data clauses `present` where that is certain.

    The owner's own loops in a lifetime find its arrays present; a kernel function's
    loops only when the file alone can call it (`static`) and every call keeps all
    its arrays on the device. `named_elsewhere`: functions named in code the
    analysis did not see (a language server's slice of the file), never `present`.
    """
    if not lifetimes:
        return suggestions
    source = analysis.source
    tops = [s for s in suggestions if s.pragma is not None and not s.inner]
    index = KernelIndex(analysis, [s for s in tops if s.offloaded])
    present: dict[int, frozenset[str]] = {}
    for lifetime in lifetimes:
        kept = frozenset(lifetime.names)
        for top in tops:
            if top.loop.function == lifetime.function and any(
                inside(top.loop.span, e) for e in lifetime.events
            ):
                present[top.loop.id] = kept
    calls = [(fn, c) for fn in source.functions for c in fn.call_sites]
    memo: dict[str, bool] = {}

    def covered(name: str) -> bool:
        """True when every call of the kernel `name` runs with all its arrays kept."""
        if name in memo:
            return memo[name]
        memo[name] = False  # recursion: not covered
        fn = source.function(name)
        sites = [(caller, c) for caller, c in calls if c.name == name]
        if fn is None or not fn.static or not index.is_kernel(name) or not sites:
            return False
        if name in named_elsewhere:
            return False
        for caller, call in sites:
            home = next(
                (
                    lt
                    for lt in lifetimes
                    if lt.function == caller.name and call.span in lt.events
                ),
                None,
            )
            uses = index.call_uses(call, caller)
            if uses is None:
                return False
            if home is not None and {u.name for u in uses} <= set(home.names):
                continue
            if home is None and index.is_kernel(caller.name) and covered(caller.name):
                continue  # the caller's own callers keep all of its arrays
            return False
        memo[name] = True
        return True

    for fn in source.functions:
        if covered(fn.name):
            names = {
                u.name
                for top in index.tops(fn.name)
                for u in loop_array_uses(top.loop, analysis)
            }
            for top in index.tops(fn.name):
                present[top.loop.id] = frozenset(names)
    return tuple(
        replace(
            s,
            pragma=present_clauses(s.pragma, present[s.loop.id]),
            region=None if _region_kept(s, present) else s.region,
        )
        if s.pragma is not None and s.loop.id in present and not s.inner
        else s
        for s in suggestions
    )


def _region_kept(suggestion: Suggestion, present: dict[int, frozenset[str]]) -> bool:
    """True when a lifetime keeps every array of the loop's data region.

    The region (inside a sequential loop the lifetime spans) would find them all
    present and move nothing: its kernels keep their `present` clauses without it.
    """
    region = suggestion.region
    if region is None:
        return False
    names = {name for name, _ in region.present}
    return all(
        loop.id in present and names <= present[loop.id] for loop in region.loops
    )
