"""ACC122 for `target nowait`: a deferred target task that later code meets unordered.

`nowait` makes a `target` construct a deferred task: the encountering thread goes
on at once, and the task runs until a `taskwait`, a barrier or the end of its
`taskgroup`. Another `target` that maps the same data, with no `depend` between
them, or host code that uses what the task copies back, may run at the same time.

What a target copies: its `map` clauses, and the implicit data-sharing of what its
body names without a clause: an array is mapped `tofrom`, a scalar or a pointer is
`firstprivate` (read from the host when the task starts). The standalone
`target enter data`, `target exit data` and `target update` with `nowait` are
deferred tasks too: `enter data map(to: ..)` and `update to(..)` read the host copy,
`exit data map(from: ..)` and `update from(..)` write it.
"""

from __future__ import annotations

import re

from accls.analysis.concurrency_kinds import TASK_RACE
from accls.analysis.finding_types import Finding, finding
from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.frontend import Function, Ref, Region, SourceFile

__all__ = [
    "body_ref",
    "branches_apart",
    "mapped_kind",
    "standalone",
    "target_maps",
    "target_nowait_findings",
]

_NAME = re.compile(r"[A-Za-z_]\w*")
_STANDALONE = (["update"], ["enter"], ["exit"])  # a target task with no body
_NO_TASK = (["data"],)  # `target data`: a data region, not a task
_ORDERING = frozenset({"taskwait", "barrier"})
_MAP_WRITE = frozenset({"from", "tofrom"})  # the host copy is written at the end
_MAP_READ = frozenset({"to", "tofrom"})  # the host copy is read at the start


def target_maps(
    target: Region, fn: Function | None = None, source: SourceFile | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """(host writes, host reads) of a target's data: name -> section text.

    With the function, the body's implicit data-sharing counts too.
    """
    writes: dict[str, str] = {}
    reads: dict[str, str] = {}
    for clause in target.directive.clauses:
        if clause.name in ("to", "from") and clause.args and standalone(target):
            for item in _items(_list(clause.args)):
                name = _NAME.match(item)
                if name is not None:
                    side = writes if clause.name == "from" else reads
                    side[name.group(0)] = "".join(item[name.end() :].split())
            continue
        if clause.name != "map" or not clause.args:
            continue
        kind, colon, items = clause.args.partition(":")
        if not colon or not re.fullmatch(r"[\w\s,()-]*", kind) or "[" in kind:
            kind, items = "", clause.args  # no map type: `map(a[0:n])`
        words = kind.replace(",", " ").split()
        if {"alloc", "release", "delete"} & set(words):
            continue  # copies nothing between the host and the device
        kind = next((w for w in words if w in _MAP_WRITE | _MAP_READ), "tofrom")
        for item in _items(items):
            name = _NAME.match(item)
            if name is None:
                continue
            section = "".join(item[name.end() :].split())
            if kind in _MAP_WRITE:
                writes[name.group(0)] = section
            if kind in _MAP_READ:
                reads[name.group(0)] = section
    if fn is not None and source is not None and not standalone(target):
        _implicit(target, fn, source, writes, reads)
    return writes, reads


_NAMED = frozenset(
    {"map", "firstprivate", "private", "is_device_ptr", "has_device_addr", "defaultmap"}
)


def _implicit(
    target: Region,
    fn: Function,
    source: SourceFile,
    writes: dict[str, str],
    reads: dict[str, str],
) -> None:
    """Add what the body names without a clause: arrays `tofrom`, scalars read."""
    if target.directive.clause("defaultmap") is not None:
        return  # the mapping rules change: only the explicit clauses are known
    named = {
        m.group(0)
        for c in target.directive.clauses
        if c.name in _NAMED and c.args
        for item in _items(_list(c.args))
        if (m := _NAME.match(item)) is not None
    }
    own = {
        v.name
        for v in fn.locals
        if v.span is not None and contains(target, v.span.start_byte)
    }
    for ref in fn.refs:
        name = ref.name
        if not contains(target, ref.span.start_byte) or name in named | own:
            continue
        var = fn.lookup(name) or next(
            (g for g in source.globals if g.name == name), None
        )
        if var is None:
            continue
        if var.dims and not var.pointers:
            writes.setdefault(name, "")
            reads.setdefault(name, "")
        elif not var.dims:
            reads.setdefault(name, "")  # firstprivate: copied when the task starts


def _list(args: str) -> str:
    """The list of a clause, past a modifier such as `present:` or `to:`."""
    head, colon, rest = args.partition(":")
    return rest if colon and "[" not in head and "(" not in head else args


def standalone(target: Region) -> bool:
    """True for `target enter data`, `target exit data` and `target update`."""
    return target.directive.name.split()[1:2] in _STANDALONE


def _end(target: Region) -> int:
    """Where the target task's body ends: its pragma line for a standalone one."""
    span = target.directive.span
    if standalone(target) and span is not None:
        return span.end_byte
    return target.span.end_byte


def _items(text: str) -> list[str]:
    """The list items of a clause, split at top-level commas."""
    out, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += ch in "[("
        depth -= ch in "])"
        if ch == "," and depth == 0:
            out.append(text[start:k].strip())
            start = k + 1
    out.append(text[start:].strip())
    return [item for item in out if item]


def _clash(one: dict[str, str], other: dict[str, str]) -> str | None:
    """A name both map, unless their sections differ (they may be apart)."""
    for name in sorted(one):
        if name in other and one[name] == other[name]:
            return name
    return None


def _ordered_between(source: SourceFile, fn: Function, first: Region, at: int) -> bool:
    """True when a `taskwait`, barrier or the end of a `taskgroup` lies between."""
    start, end = _end(first), at
    for c in source.constructs:
        if not fn.span.start_byte <= pragma_at(c) < fn.span.end_byte:
            continue
        word = first_word(c)
        if word in _ORDERING and start <= pragma_at(c) < end and not _depends(c):
            return True
        if (
            word == "taskgroup"
            and contains(c, pragma_at(first))
            and not contains(c, at)
        ):
            return True
        if word == "parallel" and contains(c, pragma_at(first)) != contains(c, at):
            return True  # a region's end is a barrier; its start forks
    return False


def _depends(region: Region) -> bool:
    return region.directive.clause("depend") is not None


def branches_apart(source: SourceFile, first: int, second: int) -> bool:
    """True when the two may lie in the two arms of one `if`: never both run."""
    arms = [b.span for b in source.branches if b.kind in ("if", "else")]
    then = any(s.start_byte <= first < s.end_byte <= second for s in arms)
    other = any(first < s.start_byte <= second < s.end_byte for s in arms)
    return then and other


def target_nowait_findings(source: SourceFile) -> list[Finding]:
    """Pairs of a `target nowait` and a later `target` that maps the same data."""
    out: list[Finding] = []
    targets = [
        c
        for c in source.constructs
        if c.directive.dialect == "omp"
        and first_word(c) == "target"
        and c.directive.name.split()[1:2] not in _NO_TASK
    ]
    for fn in source.functions:
        inside = [t for t in targets if contains_fn(fn, t)]
        for k, first in enumerate(inside):
            if first.directive.clause("nowait") is None:
                continue
            made = _first_clash(source, fn, first, inside[k + 1 :])
            bodies = [t for t in targets if not standalone(t)]
            made = made or _host_clash(source, fn, first, bodies)
            if made is not None:
                out.append(made)
    return out


def contains_fn(fn: Function, region: Region) -> bool:
    """True if the construct's pragma lies in the function."""
    return fn.span.start_byte <= pragma_at(region) < fn.span.end_byte


def _first_clash(
    source: SourceFile, fn: Function, first: Region, later: list[Region]
) -> Finding | None:
    writes, reads = target_maps(first, fn, source)
    for second in later:
        at = pragma_at(second)
        if at < _end(first):
            continue  # nested in the first
        if _ordered_between(source, fn, first, at):
            return None
        if _depends(first) and _depends(second):
            continue  # `depend` may order them: left to the task model
        if branches_apart(source, pragma_at(first), at):
            continue
        w2, r2 = target_maps(second, fn, source)
        name = _clash(writes, {**w2, **r2}) or _clash(reads, w2)
        if name is None:
            continue
        return finding(
            TASK_RACE,
            second.directive.span or second.span,
            first=name,
            first_access=mapped_kind(name, writes, reads),
            first_line=_line(first),
            second=name,
            second_access=mapped_kind(name, w2, r2),
            second_line=_line(second),
            overlap="may be copied at once",
            region=first.directive.name,
            line=_line(first),
            rule="`nowait` makes the first a deferred target task, and nothing "
            "orders the second after it",
            fix=f"add `#pragma omp taskwait` before line {_line(second)}, or "
            f"`depend` clauses on `{name}` to both constructs",
        )
    return None


def _host_clash(
    source: SourceFile, fn: Function, first: Region, targets: list[Region]
) -> Finding | None:
    """The first host access, before anything waits, of what the target copies."""
    writes, reads = target_maps(first, fn, source)
    for ref in fn.refs:
        at = ref.span.start_byte
        if at < _end(first) or any(contains(t, at) for t in targets):
            continue
        if not (ref.name in writes or (ref.name in reads and ref.is_write)):
            continue
        if _ordered_between(source, fn, first, at):
            return None
        if branches_apart(source, pragma_at(first), at):
            continue
        word = "written" if ref.is_write else "read"
        inner = body_ref(fn, first, ref.name)
        return finding(
            TASK_RACE,
            ref.span,
            first=inner.render() if inner else ref.name,
            first_access=mapped_kind(ref.name, writes, reads)
            + (
                f" {'written' if inner.is_write else 'read'} in the task"
                if inner
                else ""
            ),
            first_line=inner.span.line if inner else _line(first),
            second=ref.render(),
            second_access=f"{word} on the host",
            second_line=ref.span.line,
            overlap="may run at once",
            region=first.directive.name,
            line=_line(first),
            rule="`nowait` makes the target a deferred task, which may still be "
            "copying the data",
            fix=f"add `#pragma omp taskwait` before line {ref.span.line}",
        )
    return None


def body_ref(fn: Function, target: Region, name: str) -> Ref | None:
    """The task body's first write of `name`, else its first read."""
    if standalone(target):
        return None
    inside = [
        r for r in fn.refs if r.name == name and contains(target, r.span.start_byte)
    ]
    return next((r for r in inside if r.is_write), inside[0] if inside else None)


def mapped_kind(name: str, writes: dict[str, str], reads: dict[str, str]) -> str:
    """`map(tofrom)`, `map(from)` or `map(to)`: how a target copies `name`."""
    kind = (
        "tofrom"
        if name in writes and name in reads
        else ("from" if name in writes else "to")
    )
    return f"`map({kind})`"


def _line(region: Region) -> int:
    """The construct's pragma line."""
    span = region.directive.span
    return span.line if span is not None else region.span.line
