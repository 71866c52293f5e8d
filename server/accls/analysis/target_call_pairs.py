"""ACC122 for a helper's `target nowait` that a later helper's `target` meets.

`update_low(f->u, h); update_high(f->u, h, f->n);` where `update_low` ends on
`#pragma omp target ... map(tofrom: u[0:h+1]) nowait` with nothing waiting
for it, and `update_high` runs `#pragma omp target ... map(tofrom:
u[h:n-h])`: the first target task may still run when the second starts, and
both copy (and write) `f->u[h]`. The checks of one function (mhp_target) see
each helper alone; here the two calls are read in the caller's names.

Both maps are put in the caller's names: a parameter is the argument the call
passes (a plain name, or a member path such as `f->u`), and a section may name
only parameters and literals. The sections must surely meet
(depend_sections.sections_meet, taking each as non-empty), one of them a
`from`/`tofrom` copy. Nothing may wait between the first target and the end of
its helper, between the two calls (`taskwait`, `barrier`, the end of a
`taskgroup`), or in the second helper before its target; the caller may not
set what the two calls name in between; `depend` on both leaves them to the
task model.
"""

from __future__ import annotations

import re

from accls.analysis.concurrency_kinds import TASK_RACE
from accls.analysis.depend_sections import sections_meet
from accls.analysis.finding_types import Finding, finding
from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.analysis.mhp_target import (
    body_ref,
    branches_apart,
    mapped_kind,
    standalone,
    target_maps,
)
from accls.frontend import Call, Function, Region, SourceFile

__all__ = ["target_call_findings"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_ARGUMENT = re.compile(r"[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*")
_WAITS = frozenset({"taskwait", "barrier"})

Maps = dict[str, str]


def target_call_findings(source: SourceFile) -> list[Finding]:
    """Pairs of calls whose helpers' target tasks copy one element unordered."""
    targets = [
        c
        for c in source.constructs
        if c.directive.dialect == "omp"
        and first_word(c) == "target"
        and c.directive.name.split()[1:2] != ["data"]
    ]
    out: list[Finding] = []
    if not any(t.directive.clause("nowait") is not None for t in targets):
        return out
    for fn in source.functions:
        calls = sorted(fn.call_sites, key=lambda c: c.span.start_byte)
        for k, call in enumerate(calls):
            first = _open_target(call, source, targets)
            if first is None:
                continue
            for later in calls[k + 1 :]:
                if _waits_between(fn, source, call, later):
                    break
                if branches_apart(source, call.span.start_byte, later.span.start_byte):
                    continue  # the two arms of one `if`: never both
                made = _pair(fn, source, (call, first), later, targets)
                if made is not None:
                    out.append(made)
                    break
    return out


def _callee_targets(callee: Function, targets: list[Region]) -> list[Region]:
    inside = callee.span.start_byte, callee.span.end_byte
    return [t for t in targets if inside[0] <= pragma_at(t) < inside[1]]


def _waits(callee: Function, source: SourceFile, start: int, end: int) -> bool:
    """True when a wait (or a `taskgroup`'s end) of the callee lies in [start, end)."""
    for c in source.constructs:
        at = pragma_at(c)
        if not callee.span.start_byte <= at < callee.span.end_byte:
            continue
        plain = c.directive.clause("depend") is None
        if first_word(c) in _WAITS and start <= at < end and plain:
            return True
        if first_word(c) == "taskgroup" and contains(c, start) and not contains(c, end):
            return True
    return False


def _open_target(
    call: Call, source: SourceFile, targets: list[Region]
) -> Region | None:
    """The callee's last `target nowait`, if nothing in the callee waits for it."""
    callee = source.function(call.name)
    if callee is None or len(callee.params) != len(call.args):
        return None
    mine = _callee_targets(callee, targets)
    last = mine[-1] if mine else None
    if last is None or last.directive.clause("nowait") is None:
        return None
    span = last.directive.span
    end = span.end_byte if standalone(last) and span else last.span.end_byte
    if _waits(callee, source, end, callee.span.end_byte):
        return None
    at = pragma_at(last)
    if any(
        b.kind != "loop"
        and callee.span.start_byte <= b.span.start_byte <= at < b.span.end_byte
        for b in source.branches
    ):
        return None  # under a branch: it may not run
    return last


def _waits_between(fn: Function, source: SourceFile, one: Call, two: Call) -> bool:
    """True when a wait orders the second call after the first's target task."""
    start, end = one.span.end_byte, two.span.start_byte
    if _waits(fn, source, start, end):
        return True
    return any(
        "parallel" in c.directive.name.split()
        and contains(c, start) != contains(c, end)
        for c in source.constructs
    )


def _in_caller(call: Call, callee: Function, maps: Maps) -> Maps:
    """The maps of a callee's target with its parameters as the call's arguments."""
    args = {p.name: a.strip() for p, a in zip(callee.params, call.args, strict=True)}
    written = {r.name for r in callee.refs if r.is_write and not r.subscripts}
    out: Maps = {}
    for name, section in maps.items():
        base = args.get(name)
        if base is None or name in written or not _ARGUMENT.fullmatch(base):
            continue
        text = section
        for word in set(_NAME.findall(section)):
            value = args.get(word)
            if value is None or word in written or not _ARGUMENT.fullmatch(value):
                text = ""
                break
            # `f->n` as one name the section arithmetic can read: `f__n`
            text = re.sub(rf"\b{word}\b", re.sub(r"\W+", "__", value), text)
        if text or not section:
            out["".join(base.split())] = text
    return out


def _pair(
    fn: Function,
    source: SourceFile,
    first: tuple[Call, Region],
    later: Call,
    targets: list[Region],
) -> Finding | None:
    call, target = first
    callee = source.function(call.name)
    second_fn = source.function(later.name)
    if callee is None or second_fn is None or len(second_fn.params) != len(later.args):
        return None
    mine = _callee_targets(second_fn, targets)
    second = mine[0] if mine else None
    if second is None or _waits(
        second_fn, source, second_fn.span.start_byte, pragma_at(second)
    ):
        return None
    if target.directive.clause("depend") and second.directive.clause("depend"):
        return None  # `depend` may order them: left to the task model
    w1, r1 = (_in_caller(call, callee, m) for m in target_maps(target, callee, source))
    w2, r2 = (
        _in_caller(later, second_fn, m) for m in target_maps(second, second_fn, source)
    )
    name = _meeting(w1, {**w2, **r2}) or _meeting(r1, w2)
    if name is None or _set_between(fn, name, call, later):
        return None
    inner = _inner_name(call, callee, name)
    one = body_ref(callee, target, inner) if inner else None
    two_name = _inner_name(later, second_fn, name)
    two = body_ref(second_fn, second, two_name) if two_name else None
    return finding(
        TASK_RACE,
        later.span,
        first=one.render() if one else name,
        first_access=mapped_kind(name, w1, r1) + f" in `{call.name}`",
        first_line=one.span.line if one else _line(target),
        second=two.render() if two else name,
        second_access=mapped_kind(name, w2, r2) + f" in `{later.name}`",
        second_line=two.span.line if two else _line(second),
        overlap="may be copied at once",
        region=target.directive.name,
        line=_line(target),
        rule=f"`nowait` leaves the target task of `{call.name}` (line {_line(target)}) "
        f"running when it returns, and nothing orders the target of `{later.name}` "
        f"(line {_line(second)}) after it, while their sections of `{name}` meet",
        fix=f"add `#pragma omp taskwait` before the call at line {later.span.line}, "
        f"or `depend` clauses on `{name}` to both constructs",
    )


def _meeting(one: Maps, other: Maps) -> str | None:
    """A name both map whose sections surely share an element."""
    for name in sorted(one):
        if name not in other:
            continue
        if one[name] == other[name] or sections_meet(
            f"x{one[name]}", f"x{other[name]}"
        ):
            return name
    return None


def _set_between(fn: Function, name: str, one: Call, two: Call) -> bool:
    """True when the caller may set the pointer (or a name of it) between the calls."""
    words = set(_NAME.findall(name))
    return any(
        r.is_write
        and not r.subscripts
        and set(_NAME.findall(r.name)) & words
        and one.span.end_byte <= r.span.start_byte < two.span.start_byte
        for r in fn.refs
    )


def _inner_name(call: Call, callee: Function, name: str) -> str | None:
    """The callee's parameter the call passes `name` to."""
    for param, arg in zip(callee.params, call.args, strict=True):
        if "".join(arg.split()) == name:
            return param.name
    return None


def _line(region: Region) -> int:
    span = region.directive.span
    return span.line if span is not None else region.span.line
