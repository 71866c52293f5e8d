"""A parallel loop's shared scalars under guards that do not exclude each other.

Only the same `critical` name excludes; `atomic` and `critical` do not exclude each
other, nor does an `ordered` block exclude a `critical` one. A scalar updated under
`critical(a)` in one branch and `critical(b)` (or `atomic`) in another races; so
does an element that iterations meet again, `tot[i % 4]`.
"""

from __future__ import annotations

import re

from accls.analysis.concurrency_kinds import EXCLUSION_RACE
from accls.analysis.findings import Finding, finding
from accls.analysis.mhp_constructs import contains, first_word
from accls.analysis.races_index import literal_value, loop_range, value_at
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import Directive, Loop, Ref, Region, SourceFile

__all__ = ["exclusion_finding", "guard_text", "mixed_exclusion_findings"]

_NAME = re.compile(r"[A-Za-z_]\w*")


def _held(ref: Ref, around: list[Region]) -> frozenset[str]:
    """The exclusion each construct around `ref` gives: `critical:NAME`, `atomic`..."""
    return _held_at(ref.span.start_byte, around)


def _fixed_element(ref: Ref, moving: set[str]) -> bool:
    """True for `a[0]` or `a[k]` with `k` the same in every iteration."""
    if ref.deref or ref.member or not ref.subscripts:
        return False
    names = {n for s in ref.subscripts for n in _NAME.findall(s.text)}
    return not any(s.indirect for s in ref.subscripts) and not names & moving


def _repeated_element(ref: Ref, loop: Loop, source: SourceFile) -> bool:
    """True for `tot[i % 4]`: two iterations of the loop meet at one element.

    The subscripts are built from the loop variable and literals, and the loop's
    bounds are known: they are evaluated for every iteration.
    """
    if loop.var is None or ref.deref or ref.member or not ref.subscripts:
        return False
    if any(s.indirect for s in ref.subscripts):
        return False
    names = {n for s in ref.subscripts for n in _NAME.findall(s.text)}
    if loop.var not in names or any(
        literal_value(n, source) is None for n in names - {loop.var}
    ):
        return False  # `tot[i % M]`, `M` a macro, is evaluated too
    span = loop_range(loop, source)
    if span is None:
        return False
    seen: set[tuple[int | None, ...]] = set()
    for k in span:
        key = tuple(value_at(s.text, loop.var, k, source) for s in ref.subscripts)
        if None in key:
            return False
        if key in seen:
            return True
        seen.add(key)
    return False


def guard_text(held: frozenset[str]) -> str:
    """How a set of held locks, critical names and atomics reads in a message."""
    words = []
    for item in sorted(held):
        kind, _, name = item.partition(":")
        if kind == "critical":
            words.append(f"`critical({name})`" if name else "an unnamed `critical`")
        elif kind == "lock":
            words.append(f"the lock `{name}`")
        else:
            words.append(f"`{item}`")
    return " and ".join(words) if words else "no lock"


def mixed_exclusion_findings(
    loop: Loop, directive: Directive, source: SourceFile, private: set[str]
) -> list[Finding]:
    """ACC121 for each shared scalar whose guards do not exclude each other."""
    words = set(directive.name.split())
    if directive.dialect != "omp" or words <= {"simd", "declare"}:
        return []
    start, end = loop.keyword.start_byte, loop.span.end_byte
    around = [
        c
        for c in source.constructs
        if start <= c.span.start_byte < end
        and first_word(c) in ("critical", "atomic", "ordered")
        and not (first_word(c) == "ordered" and c.directive.clauses)
    ]
    called = _callee_guarded(loop, source, around)
    if not around and not called:
        return []
    moving = {x.var for x in loop.walk() if x.var}
    moving |= {r.name for r in loop.refs if r.is_write and is_scalar_ref(r)}
    groups: dict[str, list[tuple[Ref, frozenset[str]]]] = {}
    for ref in loop.refs:
        if ref.atomic != "omp" or ref.name in private:
            continue
        if not (
            is_scalar_ref(ref)
            or _fixed_element(ref, moving)
            or _repeated_element(ref, loop, source)
        ):
            continue
        key = ref.name + "".join(f"[{''.join(s.text.split())}]" for s in ref.subscripts)
        groups.setdefault(key, []).append((ref, _held(ref, around)))
    for ref, held in called:
        if ref.name in groups and ref.name not in private:
            groups[ref.name].append((ref, held))
    out: list[Finding] = []
    for refs in groups.values():
        clash = next(
            (
                (a, ha, b, hb)
                for a, ha in refs
                for b, hb in refs
                if a.span.start_byte < b.span.start_byte
                and (a.is_write or b.is_write)
                and ha
                and hb
                and not ha & hb
            ),
            None,
        )
        if clash is None:
            continue
        a, ha, b, hb = clash
        which = "iterations"
        if not (is_scalar_ref(a) or _fixed_element(a, moving)):
            which = f"iterations that meet at one element of `{a.name}`"
        rule = (
            f"{which} run on different threads, and line {a.span.line} "
            f"holds {guard_text(ha)} while line {b.span.line} holds "
            f"{guard_text(hb)}, which do not exclude each other"
        )
        fix = (
            "guard every access with the same `critical` name, or make all "
            "of them `atomic`"
        )
        at = a if a.is_write else b
        if not start <= at.span.start_byte < end:
            at = b if at is a else a  # report in the loop, not in a callee
        out.append(exclusion_finding(at, a, b, directive, loop, rule, fix))
    return out


def _callee_guarded(
    loop: Loop, source: SourceFile, around: list[Region]
) -> list[tuple[Ref, frozenset[str]]]:
    """Guarded accesses of globals in the functions the loop calls, one level down.

    Each comes with the exclusion it holds in the callee and around the call:
    `critical(a)` in a helper does not exclude the loop's unnamed `critical`.
    """
    fn = source.function(loop.function) if loop.function else None
    globals_ = {g.name for g in source.globals}
    out: list[tuple[Ref, frozenset[str]]] = []
    for call in loop.calls:
        callee = source.function(call.name)
        if callee is None or fn is None or callee is fn:
            continue
        start, end = callee.span.start_byte, callee.span.end_byte
        inside = [
            c
            for c in source.constructs
            if start <= c.span.start_byte < end
            and first_word(c) in ("critical", "atomic", "ordered")
        ]
        outer = _held_at(call.span.start_byte, around)
        for ref in callee.refs:
            if (
                ref.atomic == "omp"
                and ref.name in globals_
                and is_scalar_ref(ref)
                and callee.lookup(ref.name) is None
                and fn.lookup(ref.name) is None
            ):
                out.append((ref, _held(ref, inside) | outer))
    return out


def _held_at(at: int, around: list[Region]) -> frozenset[str]:
    """The exclusion the constructs around position `at` give."""
    held: set[str] = set()
    for construct in around:
        if contains(construct, at):
            word = first_word(construct)
            if word == "critical":
                first = construct.directive.clauses[:1]
                name = first[0].args or "" if first and not first[0].name else ""
                held.add(f"critical:{name.strip()}")
            elif word in ("atomic", "ordered"):
                held.add(word)
    return frozenset(held)


def exclusion_finding(
    at: Ref,
    one: Ref,
    other: Ref,
    directive: Directive,
    loop: Loop,
    rule: str,
    fix: str,
) -> Finding:
    """ACC121 at `at` for two accesses of a parallel loop that nothing excludes."""
    first, second = sorted((one, other), key=lambda r: r.span.start_byte)
    return finding(
        EXCLUSION_RACE,
        at.span,
        first=first.render(),
        first_access=first.kind.value,
        first_line=first.span.line,
        second=second.render(),
        second_access=second.kind.value,
        second_line=second.span.line,
        overlap="may run in parallel",
        region=directive.name,
        line=loop.line,
        rule=rule,
        fix=fix,
    )
