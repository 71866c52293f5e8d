"""ACC122 for `target nowait`: a deferred target task that later code meets unordered.

`nowait` makes a `target` construct a deferred task: the encountering thread goes
on at once, and the task runs until a `taskwait`, a barrier or the end of its
`taskgroup`. Another `target` that maps the same data, with no `depend` between
them, or host code that uses what the task copies back, may run at the same time.
"""

from __future__ import annotations

import re

from accls.analysis.concurrency_kinds import TASK_RACE
from accls.analysis.finding_types import Finding, finding
from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.frontend import Function, Region, SourceFile

__all__ = ["target_nowait_findings"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_STANDALONE = (["data"], ["update"], ["enter"], ["exit"])  # no target task body
_ORDERING = frozenset({"taskwait", "barrier"})
_MAP_WRITE = frozenset({"from", "tofrom"})  # the host copy is written at the end
_MAP_READ = frozenset({"to", "tofrom"})  # the host copy is read at the start


def _maps(target: Region) -> tuple[dict[str, str], dict[str, str]]:
    """(host writes, host reads) of a target's `map` clauses: name -> section text."""
    writes: dict[str, str] = {}
    reads: dict[str, str] = {}
    for clause in target.directive.clauses:
        if clause.name != "map" or not clause.args:
            continue
        kind, colon, items = clause.args.partition(":")
        if not colon or not re.fullmatch(r"[\w\s,()-]*", kind) or "[" in kind:
            kind, items = "", clause.args  # no map type: `map(a[0:n])`
        words = kind.replace(",", " ").split()
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
    return writes, reads


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
    start, end = first.span.end_byte, at
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


def _branches_apart(source: SourceFile, first: int, second: int) -> bool:
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
        and c.directive.name.split()[1:2]
        not in (["data"], ["update"], ["enter"], ["exit"])
    ]
    for fn in source.functions:
        inside = [t for t in targets if contains_fn(fn, t)]
        for k, first in enumerate(inside):
            if first.directive.clause("nowait") is None:
                continue
            made = _first_clash(source, fn, first, inside[k + 1 :])
            made = made or _host_clash(source, fn, first, targets)
            if made is not None:
                out.append(made)
    return out


def contains_fn(fn: Function, region: Region) -> bool:
    """True if the construct's pragma lies in the function."""
    return fn.span.start_byte <= pragma_at(region) < fn.span.end_byte


def _first_clash(
    source: SourceFile, fn: Function, first: Region, later: list[Region]
) -> Finding | None:
    writes, reads = _maps(first)
    for second in later:
        at = pragma_at(second)
        if at < first.span.end_byte:
            continue  # nested in the first
        if _ordered_between(source, fn, first, at):
            return None
        if _depends(first) and _depends(second):
            continue  # `depend` may order them: left to the task model
        if _branches_apart(source, pragma_at(first), at):
            continue
        w2, r2 = _maps(second)
        name = _clash(writes, {**w2, **r2}) or _clash(reads, w2)
        if name is None:
            continue
        return finding(
            TASK_RACE,
            second.directive.span or second.span,
            first=name,
            first_access=_mapped(name, writes, reads),
            first_line=_line(first),
            second=name,
            second_access=_mapped(name, w2, r2),
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
    writes, reads = _maps(first)
    for ref in fn.refs:
        at = ref.span.start_byte
        if at < first.span.end_byte or any(contains(t, at) for t in targets):
            continue
        if not (ref.name in writes or (ref.name in reads and ref.is_write)):
            continue
        if _ordered_between(source, fn, first, at):
            return None
        if _branches_apart(source, pragma_at(first), at):
            continue
        word = "written" if ref.is_write else "read"
        return finding(
            TASK_RACE,
            ref.span,
            first=ref.name,
            first_access=_mapped(ref.name, writes, reads),
            first_line=_line(first),
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


def _mapped(name: str, writes: dict[str, str], reads: dict[str, str]) -> str:
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
