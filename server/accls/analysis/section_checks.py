"""ACC205: data-clause sections that provably miss elements a loop nest accesses.

ACC209: `copyout` sections holding elements the device provably never writes.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import replace

from accls.analysis.analyze import FileAnalysis
from accls.analysis.array_sections import array_uses
from accls.analysis.data_clauses import Section, clause_sections, managed_arrays
from accls.analysis.data_kinds import SHORT_SECTION, UNWRITTEN_COPYOUT
from accls.analysis.findings import Finding, finding
from accls.analysis.inequalities import proves_nonnegative
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.frontend import Directive, Function, Loop, Poly, Ref, Span
from accls.frontend.exprs import expression_poly

__all__ = [
    "accessed_range",
    "copyout_findings",
    "runs_always",
    "section_findings",
]

_ONE = Poly.const(1)
# `x / 4`, `(n + 1) / 2`: a quotient by a positive literal, read as a new name.
_QUOTIENT = re.compile(r"(\b[A-Za-z_]\w*\b|\([^()]*\))\s*/\s*([1-9]\d*)\b")


def _section_poly(
    text: str, quotients: list[tuple[str, Poly, int, str]]
) -> Poly | None:
    """The value of a section bound, each quotient `e / c` a new name `q`.

    `_quotient_facts` bounds `q`: `c*q <= e <= c*q + c - 1` once `e >= 0` is
    shown (C truncates toward zero).
    """
    found = expression_poly(text)
    if found is not None or "/" not in text:
        return found

    def name(match: re.Match[str]) -> str:
        inner = expression_poly(match.group(1))
        if inner is None:
            return match.group(0)
        fresh = f"__quotient{len(quotients)}"
        quotients.append((fresh, inner, int(match.group(2)), match.group(0)))
        return fresh

    return expression_poly(_QUOTIENT.sub(name, text))


def _quotient_facts(
    quotients: list[tuple[str, Poly, int, str]], facts: list[Poly]
) -> list[Poly]:
    out: list[Poly] = []
    for fresh, inner, divisor, _ in quotients:
        if proves_nonnegative(inner, facts):
            q = Poly.sym(fresh).scale(divisor)
            out += [inner - q, q + Poly.const(divisor - 1) - inner]
    return out


_NOT_COMPUTE = frozenset({"data", "enter", "exit", "update"})


def _holders(loop: Loop, dialect: str) -> list[tuple[Directive, Span]]:
    """Directives with data clauses that govern the loop, outermost first."""
    out = [
        (r.directive, r.span)
        for r in loop.regions
        if r.directive.dialect == dialect
        and not set(r.directive.name.split()) & {"enter", "exit", "update"}
    ]
    out += [(d, loop.span) for d in loop.pragmas if d.dialect == dialect]
    return out


def _offloaded(loop: Loop, dialect: str) -> bool:
    """True if the loop runs on the device: a compute pragma on it or around it."""
    directives = [r.directive for r in loop.regions] + list(loop.pragmas)
    for d in directives:
        words = set(d.name.split())
        if d.dialect != dialect:
            continue
        if dialect == "acc" and words & {"parallel", "kernels", "serial"}:
            return True
        if dialect == "omp" and "target" in words and not words & _NOT_COMPUTE:
            return True
    return False


def _outermost(chain: list[tuple[Directive, Span]]) -> dict[str, tuple[Section, Span]]:
    """Per array, the section of the outermost clause: inner ones find it present."""
    out: dict[str, tuple[Section, Span] | None] = {}
    for directive, span in chain:
        sections = clause_sections(directive)
        names = [section.name for section in sections]
        for section in sections:
            # Two clauses of one directive naming an array: which counts is unclear.
            twice = names.count(section.name) > 1
            out.setdefault(section.name, None if twice else (section, span))
    return {name: found for name, found in out.items() if found is not None}


def _range(loop: Loop) -> tuple[Poly, Poly] | None:
    """Inclusive (low, high) of a unit-step loop variable, every value attained."""
    if loop.lower is None or loop.upper is None or loop.exits or loop.opaque:
        return None
    if loop.step == 1 and loop.cond_op in ("<", "<="):
        return loop.lower, loop.upper - _ONE if loop.cond_op == "<" else loop.upper
    if loop.step == -1 and loop.cond_op in (">", ">="):
        return loop.upper + _ONE if loop.cond_op == ">" else loop.upper, loop.lower
    return None


def runs_always(ref: Ref, root: Loop) -> bool:
    """True if the reference runs in every iteration of every loop around it."""
    if root.id not in ref.context or ref.guarded or ref.deref or ref.member:
        return False
    return all(c >= 0 for c in ref.context[ref.context.index(root.id) :])


def _scalar_writes(analysis: FileAnalysis, fn: Function) -> dict[str, list[int]]:
    """The offsets of the function's scalar writes, by name, built once per file.

    Scanning every reference of the function for each data clause made a
    function of 1,000 loops cost a million look-ups.
    """
    key = ("scalar writes", fn.name)
    found = analysis.memo.get(key)
    if found is None:
        writes: dict[str, list[int]] = {}
        for r in fn.refs:
            if r.is_write and not r.subscripts:
                writes.setdefault(r.name, []).append(r.span.start_byte)
        for offsets in writes.values():
            offsets.sort()
        found = analysis.memo[key] = writes
    return found  # type: ignore[return-value]


def _written_between(
    analysis: FileAnalysis, fn: Function | None, names: set[str], start: int, end: int
) -> bool:
    """True if a scalar write to one of `names` lies in [start, end)."""
    if fn is None:
        return True
    writes = _scalar_writes(analysis, fn)
    for name in names:
        offsets = writes.get(name, [])
        at = bisect_left(offsets, start)
        if at < len(offsets) and offsets[at] < end:
            return True
    return False


def accessed_range(
    ref: Ref, root: Loop, rank: int, variant: set[str]
) -> tuple[list[tuple[Poly, Poly]], list[Poly]] | None:
    """Per dimension the (first, last) element the reference touches, and facts."""
    nest = {inner.id: inner for inner in root.walk()}
    around = [nest[i] for i in ref.loops if i in nest]
    facts: list[Poly] = []
    loop_vars: set[str] = set()
    for inner in around:
        found = _range(inner)
        if found is None or inner.var is None:
            return None
        facts.append(found[1] - found[0])  # it runs, since the reference ran
        loop_vars.add(inner.var)
    subs = [s.poly for s in ref.subscripts[:rank]]
    if len(ref.subscripts) < rank or any(p is None or not p.is_affine for p in subs):
        return None
    others = {inner.var for inner in nest.values() if inner.var} - loop_vars
    if any((p.names() if p else set()) & others for p in subs):
        return None  # a loop variable read after its loop ended
    uses = array_uses(replace(root, refs=(ref,)), {})
    box = uses[0].box if len(uses) == 1 else None
    if box is None:
        return None
    out = [(start, start + length - _ONE) for start, length in box[:rank]]
    if any((a.names() | b.names()) & variant for a, b in out):
        return None
    return out, facts


def _text(name: str, dims: list[tuple[Poly, Poly]]) -> str:
    return name + "".join(f"[{a.render()}..{b.render()}]" for a, b in dims)


def _unquote(text: str, quotients: list[tuple[str, Poly, int, str]]) -> str:
    for fresh, _, _, written in reversed(quotients):
        text = text.replace(fresh, written.replace(" ", ""))
    return text


def _bounds(
    root: Loop, section: Section, span: Span, analysis: FileAnalysis
) -> tuple[list[tuple[Poly, Poly]], list[tuple[str, Poly, int, str]], set[str]] | None:
    """The section's inclusive bounds, its quotients, the loop's variant names.

    None when a bound is unknown or may change before the loop ends.
    """
    quotients: list[tuple[str, Poly, int, str]] = []
    polys = [
        (_section_poly(a, quotients), _section_poly(b, quotients))
        for a, b in section.dims
    ]
    bounds: list[tuple[Poly, Poly]] = []
    for lo, length in polys:
        if lo is None or length is None:
            return None
        bounds.append((lo, lo + length - _ONE))
    fn = analysis.source.function(root.function)
    symbols = {n for lo, hi in bounds for n in lo.names() | hi.names()}
    if _written_between(
        analysis, fn, {*symbols, section.name}, span.start_byte, root.span.end_byte
    ):
        return None
    variant = {v.name for inner in root.walk() for v in inner.locals}
    variant |= {r.name for r in root.refs if r.is_write and not r.subscripts}
    if section.name in variant:
        return None  # a local of the loop shadows the array the clause names
    return bounds, quotients, variant


def _judge(
    root: Loop, section: Section, span: Span, analysis: FileAnalysis
) -> Finding | None:
    known = _bounds(root, section, span, analysis)
    if known is None:
        return None
    bounds, quotients, variant = known
    for ref in root.refs:
        if ref.name != section.name or not runs_always(ref, root):
            continue
        found = accessed_range(ref, root, len(bounds), variant)
        if found is None:
            continue
        dims, facts = found
        facts = facts + _quotient_facts(quotients, facts)
        for (lo, hi), (first, last) in zip(bounds, dims, strict=True):
            below = proves_nonnegative(lo - first - _ONE, facts)
            if below or proves_nonnegative(last - hi - _ONE, facts):
                return finding(
                    SHORT_SECTION,
                    ref.span,
                    clause=section.clause,
                    moved=_unquote(_text(section.name, bounds), quotients),
                    line=root.line,
                    verb="writes" if ref.is_write else "reads",
                    accessed=_text(section.name, dims),
                    ref=analysis.source.data[
                        ref.span.start_byte : ref.span.end_byte
                    ].decode("utf-8", errors="replace"),
                    side="below" if below else "above",
                )
    return None


def section_findings(analysis: FileAnalysis, dialect: str) -> list[Finding]:
    """Loops that touch elements outside the section their data clause moves."""
    source = analysis.source
    managed = managed_arrays(source, dialect)
    out: list[Finding] = []
    done: set[tuple[int, str, int]] = set()
    for loop in source.loops():
        for name, (section, span) in _outermost(_holders(loop, dialect)).items():
            key = (span.start_byte, name, loop.id)
            if key in done or name in managed or not section.dims:
                continue
            if not _offloaded(loop, dialect):
                continue  # a host loop inside a data region reads host memory
            done.update((span.start_byte, name, inner.id) for inner in loop.walk())
            found = _judge(loop, section, span, analysis)
            out.extend([found] if found is not None else [])
    return out


def _never_written(
    root: Loop, section: Section, where: Span, analysis: FileAnalysis
) -> Finding | None:
    """ACC209 when every write of the nest provably misses an end of the section."""
    known = _bounds(root, section, root.span, analysis)
    if known is None:
        return None
    bounds, quotients, variant = known
    if any(c.name not in PURE_FUNCTIONS for inner in root.walk() for c in inner.calls):
        return None  # a callee may write the array on the device
    writes = [r for r in root.refs if r.name == section.name and r.is_write]
    if not writes:
        return None  # ACC204's case: copied back, never written
    ranges = []
    for ref in writes:
        if ref.deref or ref.member:
            return None
        # Conditional writes count as if they always ran: a may-write range.
        reach = accessed_range(ref, root, len(bounds), variant)
        if reach is None:
            return None
        dims, facts = reach
        ranges.append((dims, facts + _quotient_facts(quotients, facts)))
    for d, (lo, hi) in enumerate(bounds):
        for end, missed in ((hi, "top"), (lo, "bottom")):
            if all(
                proves_nonnegative(
                    end - dims[d][1] - _ONE
                    if missed == "top"
                    else dims[d][0] - end - _ONE,
                    facts,
                )
                for dims, facts in ranges
            ):
                element = [f"[{a.render()}..{b.render()}]" for a, b in bounds]
                element[d] = f"[{end.render()}]"
                return finding(
                    UNWRITTEN_COPYOUT,
                    where,
                    clause=section.clause,
                    moved=_unquote(_text(section.name, bounds), quotients),
                    line=root.line,
                    missed=_unquote(section.name + "".join(element), quotients),
                )
    return None


def copyout_findings(analysis: FileAnalysis, dialect: str) -> list[Finding]:
    """`copyout` on a loop's own construct of elements the loop never writes."""
    source = analysis.source
    managed = managed_arrays(source, dialect)
    out: list[Finding] = []
    for loop in source.loops():
        if not any(d.dialect == dialect for d in loop.pragmas):
            continue
        if not _offloaded(loop, dialect):
            continue
        for name, (section, span) in _outermost(_holders(loop, dialect)).items():
            if section.kind != "copyout" or not section.dims or name in managed:
                continue
            if span != loop.span:
                continue  # a data region's other code may write the rest
            directive = next(d for d in loop.pragmas if section in clause_sections(d))
            found = _never_written(loop, section, directive.span or span, analysis)
            out.extend([found] if found is not None else [])
    return out
