"""ACC129: a reduction over an array section that misses elements the loop updates.

`reduction(+:c[0:5])` gives each thread a private copy of `c[0..4]` only, and
the loop's `c` then names that copy: an update of `c[7]` lands past its end
(gcc 12 and clang 14 lose those updates even on one thread), or, elsewhere, in
the shared array from every thread with no reduction. The sums are wrong.
Each reference that writes the array in the nest is compared with the
section, dimension by dimension:

- an error where it surely reaches outside: the range ACC205 proves (an affine
  subscript of unit-step loops, run in every iteration);
- a warning where it may: the bounds of the subscript over the nest
  (`section_box`, which knows loop ranges and remainders; a remainder `e % m`
  is at most `m - 1` whatever the sign of `e`, a mask `e & 15` is 0..15),
  read through a local set once per iteration before the update
  (`int y = v[i] % 10; c[y] += 1;`) and tightened by the conditions that
  dominate the update (`if (y < 5)`, an earlier `if (y >= 5) continue;`:
  `ref_guards`), or no bound at all (the analysis cannot prove the section
  holds the updates).

A remainder of a dividend whose sign is unknown may be negative; a section
starting at 0 is not blamed for that (the loop would index before the array
with or without the clause). A section bound that is no polynomial, or that
the loop changes, is not judged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from accls.analysis.data_clauses import Section, reduction_sections
from accls.analysis.findings import SHORT_REDUCTION_SECTION, Finding, Severity, finding
from accls.analysis.inequalities import proves_nonnegative
from accls.analysis.modulo_sections import modulo_range
from accls.analysis.nest_views import integer_macros
from accls.analysis.ref_guards import guard_bounds, guard_facts, tighter
from accls.analysis.section_box import loop_range, section_box
from accls.analysis.section_checks import accessed_range, runs_always
from accls.frontend import (
    AccessKind,
    Directive,
    Loop,
    Poly,
    Ref,
    SourceFile,
    Subscript,
)
from accls.frontend.exprs import expression_poly

__all__ = ["reduction_section_findings"]

_ONE = Poly.const(1)
_MASK = re.compile(
    r"^[^&|^?:=<>,]*[^&]&\s*(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)[uUlL]*\s*$"
)
_ASSIGN = re.compile(rb"\s*=\s*([^;,{}=][^;,{}]*);")
_FIX = "widen the section to hold them, or reduce the whole array"
_RACE = (
    "no thread's copy holds those elements, so the updates land outside the copy "
    "(past its end with gcc and clang, or in the shared array with no reduction) "
    f"and the sums are wrong, even on one thread; {_FIX}"
)
_MAYBE = (
    "the analysis cannot prove the section holds them; an update outside it lands "
    f"outside each thread's copy and the sums are wrong; {_FIX}"
)


def _definition(name: str, ref: Ref, loop: Loop, source: SourceFile) -> str | None:
    """The text a scalar set once per iteration, before `ref`, holds at `ref`."""
    writes = [
        r for r in loop.refs if r.name == name and r.is_write and not r.subscripts
    ]
    if len(writes) != 1 or writes[0].kind is not AccessKind.WRITE:
        return None
    write = writes[0]
    if write.deref or write.guarded or write.span.start_byte > ref.span.start_byte:
        return None
    if ref.context[: len(write.context)] != write.context:
        return None  # the write does not run wherever the update does
    found = _ASSIGN.match(source.data, write.span.end_byte)
    return found.group(1).decode("utf-8", "replace").strip() if found else None


def _proves(poly: Poly, facts: list[Poly], values: Mapping[str, Poly]) -> bool:
    """`poly >= 0` given the facts, the file's integer macros put in (`NB` = 12)."""
    known = [fact.substitute(values) for fact in facts]
    return proves_nonnegative(poly.substitute(values), known)


def _ranges(ref: Ref, loop: Loop) -> list[tuple[str, Poly, Poly]]:
    """The (variable, low, high) of the nest's loops around `ref`, innermost first."""
    nest = {inner.id: inner for inner in loop.walk()}
    out: list[tuple[str, Poly, Poly]] = []
    for key in reversed(ref.loops):
        inner = nest.get(key)
        found = loop_range(inner) if inner is not None else None
        if inner is not None and inner.var and found is not None:
            out.append((inner.var, *found))
    return out


def _bounds(
    ref: Ref, dim: int, loop: Loop, source: SourceFile, variant: frozenset[str]
) -> tuple[Poly | None, Poly | None]:
    """Inclusive (low, high) the subscript may take over the nest; None if unknown."""
    low, high = _unguarded(ref, dim, loop, source, variant)
    sub = ref.subscripts[dim]
    facts = guard_facts(ref, source.function(loop.function), source)
    if sub.indirect or sub.poly is None or not facts:
        return low, high
    ranges = _ranges(ref, loop)
    known = [top - bottom for _, bottom, top in ranges] + facts
    lows, highs = guard_bounds(sub.poly, facts)
    for found, is_high in [(b, False) for b in lows] + [(b, True) for b in highs]:
        bound = _extreme_over(ref, found, ranges, is_high, variant)
        if is_high:
            high = tighter(high, bound, True, known)
        else:
            low = tighter(low, bound, False, known)
    return low, high


def _extreme_over(
    ref: Ref,
    poly: Poly,
    ranges: list[tuple[str, Poly, Poly]],
    high: bool,
    variant: frozenset[str],
) -> Poly | None:
    """`poly`'s bound over the loops around `ref`; None if it names a variant."""
    alone = Subscript(poly.render(), poly)
    box = section_box([replace(ref, subscripts=(alone,))], ranges, variant)
    if box is None:
        return None
    low, length = box[0]
    return low + length - _ONE if high else low


def _unguarded(
    ref: Ref, dim: int, loop: Loop, source: SourceFile, variant: frozenset[str]
) -> tuple[Poly | None, Poly | None]:
    """`_bounds` from the subscript and the loops alone."""
    sub = ref.subscripts[dim]
    text = sub.text.strip()
    if text.isidentifier() and text in variant:
        text = _definition(text, ref, loop, source) or text
    poly = None if "[" in text else expression_poly(text)
    alone = Subscript(text, poly, indirect="[" in text)
    box = section_box([replace(ref, subscripts=(alone,))], _ranges(ref, loop), variant)
    if box is not None:
        low, length = box[0]
        return low, low + length - _ONE
    mask = _MASK.match(text)
    if mask is not None:  # `e & 15` is 0..15 whatever the sign of `e`
        digits = mask.group(1)
        base = 16 if digits[1:2] in ("x", "X") else 8 if digits[:1] == "0" else 10
        return Poly.const(0), Poly.const(int(digits, base))
    found = modulo_range(text, True, variant)
    return (None, found[1]) if found is not None else (None, None)


def _text(ref: Ref, source: SourceFile) -> str:
    return source.data[ref.span.start_byte : ref.span.end_byte].decode(
        "utf-8", errors="replace"
    )


def _section_bounds(
    section: Section, variant: frozenset[str]
) -> list[tuple[Poly, Poly]] | None:
    out: list[tuple[Poly, Poly]] = []
    for lo_text, length_text in section.dims:
        lo, length = expression_poly(lo_text), expression_poly(length_text)
        if lo is None or length is None or (lo.names() | length.names()) & variant:
            return None
        out.append((lo, lo + length - _ONE))
    return out


def _judge(
    ref: Ref,
    loop: Loop,
    bounds: list[tuple[Poly, Poly]],
    source: SourceFile,
    variant: frozenset[str],
    values: Mapping[str, Poly],
) -> tuple[str, bool] | None:
    """How `ref` reaches outside the section, and whether surely; None if inside."""
    sure = accessed_range(ref, loop, len(bounds), set(variant))
    if sure is not None and runs_always(ref, loop):
        dims, facts = sure
        for (lo, hi), (first, last) in zip(bounds, dims, strict=True):
            if _proves(lo - first - _ONE, facts, values) or _proves(
                last - hi - _ONE, facts, values
            ):
                where = "".join(f"[{a.render()}..{b.render()}]" for a, b in dims)
                return f"updates `{ref.name}{where}`", True
    reach = [_bounds(ref, dim, loop, source, variant) for dim in range(len(bounds))]
    facts = [high - low for _, low, high in _ranges(ref, loop)]
    if _inside(reach, bounds, facts, values):
        return None
    if any(high is None for _, high in reach):
        return "updates elements the analysis cannot bound", False
    parts = [
        f"[{low.render() if low is not None else ''}..{high.render()}]"
        for low, high in reach
        if high is not None
    ]
    return f"may update `{ref.name}{''.join(parts)}`", False


def _inside(
    reach: list[tuple[Poly | None, Poly | None]],
    bounds: list[tuple[Poly, Poly]],
    facts: list[Poly],
    values: Mapping[str, Poly],
) -> bool:
    """True when every subscript's (low, high) `reach` is proved within the section."""
    for (lo, hi), (low, high) in zip(bounds, reach, strict=True):
        if high is None or not _proves(hi - high, facts, values):
            return False
        if low is None and lo != Poly.const(0):
            return False
        if low is not None and not _proves(low - lo, facts, values):
            return False
    return True


def reduction_section_findings(
    loop: Loop, directive: Directive, source: SourceFile
) -> list[Finding]:
    """ACC129 for each reduction section over the loop the nest writes outside of.

    The clause may be the loop's or an enclosing construct's (`parallel
    reduction(+:c[0:5])` around `for`): the loop's updates are judged either way.
    """
    holders = [
        r.directive for r in loop.regions if r.directive.dialect == directive.dialect
    ]
    sections = [s for d in (*holders, directive) for s in reduction_sections(d)]
    if not sections:
        return []
    values = {n: Poly.const(v) for n, v in integer_macros(source.macros).items()}
    variant = frozenset(
        {inner.var for inner in loop.walk() if inner.var}
        | {v.name for inner in loop.walk() for v in inner.locals}
        | {r.name for r in loop.refs if r.is_write and not r.subscripts}
    )
    out: list[Finding] = []
    for section in sections:
        bounds = _section_bounds(section, variant)
        if bounds is None or section.name in variant:
            continue
        for ref in loop.refs:
            if ref.name != section.name or not ref.is_write or ref.deref:
                continue
            if len(ref.subscripts) < len(bounds):
                continue
            judged = _judge(ref, loop, bounds, source, variant, values)
            if judged is None:
                continue
            reach, sure = judged
            out.append(
                finding(
                    SHORT_REDUCTION_SECTION,
                    ref.span,
                    None if sure else Severity.WARNING,
                    clause=section.clause,
                    line=loop.line,
                    section=section.name
                    + "".join(f"[{a}:{b}]" for a, b in section.dims),
                    ref=_text(ref, source),
                    use=ref.span.line,
                    reach=reach,
                    why=_RACE if sure else _MAYBE,
                )
            )
            break
    return out
