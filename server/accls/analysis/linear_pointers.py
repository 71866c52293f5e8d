"""ACC101 for a pointer under `linear(p: s)` whose iterations touch one element.

`#pragma omp parallel for linear(out: HOP)` gives iteration k the pointer
`out0 + HOP*k` until the body moves it. A body that touches `out[c]` for every
`c` of a set C (a literal, or an inner loop's counter over literal bounds, plus
a literal) then touches `out0 + HOP*k + c`: iterations k and k + m meet when two
offsets of C lie `m*HOP` apart. Overlap-add with a hop shorter than its frame
(`for (c = 0; c < FLEN; c++) out[c] += ...`, FLEN > HOP) writes one sample from
two iterations at once. The dependence analysis sees such a pointer as each
thread's own (the clause privatizes it), so this check places its elements.
"""

from __future__ import annotations

import itertools
import re

from accls.analysis.findings import CARRIED_DEPENDENCE, Finding, finding
from accls.analysis.races_index import literal_value
from accls.frontend import Directive, Loop, Ref, SourceFile

__all__ = ["linear_pointer_findings"]

_LINEAR = re.compile(
    r"^\s*([A-Za-z_]\w*)\s*:\s*(?:step\s*\(\s*)?([A-Za-z_]\w*|\d+)\s*\)?\s*$"
)
_SPAN_LIMIT = 4096  # offsets enumerated at most


def _pointer_steps(directive: Directive, source: SourceFile) -> dict[str, int]:
    """`linear(p: S)` of the loop's directive, S a literal or a macro."""
    out: dict[str, int] = {}
    for clause in directive.clauses:
        match = _LINEAR.match(clause.args or "") if clause.name == "linear" else None
        step = literal_value(match.group(2), source) if match else None
        if match is not None and step:
            out[match.group(1)] = step
    return out


def _inner(loop: Loop, pos: int) -> list[Loop]:
    """The loops nested in `loop` that hold byte `pos`, outermost first."""
    out: list[Loop] = []
    here = loop
    while True:
        nxt = next(
            (c for c in here.children if c.span.start_byte <= pos < c.span.end_byte),
            None,
        )
        if nxt is None:
            return out
        out.append(nxt)
        here = nxt


def _offsets(ref: Ref, loop: Loop, source: SourceFile) -> range | None:
    """The offsets `p[c]` takes in one iteration, every one of them surely."""
    if ref.guarded or ref.atomic or len(ref.subscripts) != 1:
        return None
    poly = ref.subscripts[0].poly
    if poly is None:
        return None
    const, names = 0, []
    for mono, coeff in poly.terms:
        if mono == ():
            const = coeff
        elif len(mono) == 1 and coeff == 1:
            names.append(mono[0])
        else:
            return None
    inner = _inner(loop, ref.span.start_byte)
    if not names:
        return range(const, const + 1) if not inner else None
    if len(names) != 1 or len(inner) != 1 or inner[0].var != names[0]:
        return None
    counter = inner[0]
    low = literal_value(counter.lower_text, source)
    high = literal_value(counter.upper_text, source)
    if counter.step != 1 or counter.exits or low is None or high is None:
        return None
    end = {"<": high, "<=": high + 1}.get(counter.cond_op or "")
    if end is None or not 0 < end - low <= _SPAN_LIMIT:
        return None
    return range(low + const, end + const)


def _in_branch(ref: Ref, loop: Loop, source: SourceFile) -> bool:
    pos = ref.span.start_byte
    return any(
        b.kind != "loop"
        and b.span.start_byte <= pos < b.span.end_byte
        and loop.body.start_byte <= b.span.start_byte
        for b in source.branches
    )


def _meeting(one: Ref, two: Ref, step: int, loop: Loop, source: SourceFile) -> str:
    """Why `one` and `two` of two iterations name one element, or ""."""
    if not (one.is_write or two.is_write):
        return ""
    if _in_branch(one, loop, source) or _in_branch(two, loop, source):
        return ""
    first, second = _offsets(one, loop, source), _offsets(two, loop, source)
    if first is None or second is None:
        return ""
    meet = next(
        ((a, b) for a in first for b in second if b != a and (b - a) % step == 0),
        None,
    )
    if meet is None:
        return ""
    a, b = meet
    return (
        f"`linear({one.name}: {step})` makes `{one.name}` its value before the loop "
        f"plus {step}*k in iteration k until the body moves it, so "
        f"`{one.name}[{b}]` of one iteration (line {two.span.line}) is "
        f"`{one.name}[{a}]` of the iteration {abs((b - a) // step)} "
        f"{'later' if b > a else 'earlier'} (line {one.span.line})"
    )


def linear_pointer_findings(
    loop: Loop, directive: Directive, source: SourceFile
) -> list[Finding]:
    """ACC101 for the elements a `linear` pointer's iterations share."""
    fn = source.function(loop.function) if loop.function else None
    if fn is None:
        return []
    out: list[Finding] = []
    for name, step in sorted(_pointer_steps(directive, source).items()):
        var = fn.lookup(name)
        if var is None or var.pointers < 1 or var.dims or var.address_taken:
            continue
        moved = min(
            (
                r.span.start_byte
                for r in loop.refs
                if r.name == name and r.is_write and not r.subscripts and not r.deref
            ),
            default=loop.span.end_byte,
        )
        elements = [
            r
            for r in loop.refs
            if r.name == name and r.subscripts and r.span.start_byte < moved
        ]
        pairs = itertools.combinations_with_replacement(elements, 2)
        for one, two in pairs:
            why = _meeting(one, two, step, loop, source)
            if why:
                write = one if one.is_write else two
                out.append(
                    finding(
                        CARRIED_DEPENDENCE,
                        write.span,
                        directive=directive.name,
                        line=loop.line,
                        dep=why,
                        source_line=one.span.line,
                        sink_line=two.span.line,
                    )
                )
                break
    return out
