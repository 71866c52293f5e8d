"""Why a loop over segments of one array is not proved parallel: the count.

`for (iOff = 64*iBox; iOff < 64*iBox + n[iBox]; iOff++) p[iOff] += ..` gives
each iteration of `iBox` the elements from `64*iBox` on, `n[iBox]` of them.
The next iteration starts 64 further, so the iterations stay apart only if
that count never exceeds 64: a fact of the program's data (CoMD's atoms per
link cell), which the dependence test does not have. The bare dependence
("`p[iOff]` is read as `p[iOff]` in a later iteration") reads as nonsense to
someone who sees one element per iteration; this note names the count and the
bound it would need. It explains a refusal and never lifts one.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.model import Dependence
from accls.frontend import Loop, Poly, Ref, Span

__all__ = ["segment_note"]


def _fold(poly: Poly, macros: Mapping[str, int]) -> Poly:
    return poly.substitute({name: Poly.const(v) for name, v in macros.items()})


def _linear_in(poly: Poly, var: str) -> bool:
    """True when `var` occurs in `poly` only as a term `c*var`."""
    rest = poly - Poly.sym(var).scale(poly.coeff(var))
    return var not in rest.names()


def _stride_text(
    stride: int, unfolded: tuple[Poly, ...], macros: Mapping[str, int]
) -> str:
    """`MAXATOMS` when a macro of that value wrote the stride, else the number."""
    names = {n for p in unfolded for n in p.names() if macros.get(n) == stride}
    return f"`{names.pop()}` ({stride})" if len(names) == 1 else str(stride)


def _count(inner: Loop, lower: Poly, macros: Mapping[str, int]) -> str | None:
    """The number of values the inner loop's variable takes, as text; None if fixed."""
    extra = 1 if inner.cond_op == "<=" else 0
    if inner.upper is not None:
        count = _fold(inner.upper, macros) - lower + Poly.const(extra)
        return None if count.is_constant else count.render()
    text = inner.upper_text.strip()
    if not lower.is_constant:
        # `iOff < MAXATOMS*iBox + count[iBox]`: the text after the start's.
        start, upper = "".join(inner.lower_text.split()), "".join(text.split())
        rest = upper.removeprefix(start + "+") if start else upper
        return None if rest == upper or extra else rest
    if not text:
        return None
    shift = extra - lower.constant
    return text if shift == 0 else f"{text} {'+' if shift > 0 else '-'} {abs(shift)}"


def _segment(
    ref: Ref, carrier: Loop, loops: Mapping[int, Loop], macros: Mapping[str, int]
) -> str | None:
    """The note for the row subscript of `ref`, if it walks a segment per iteration."""
    var = carrier.var or ""
    chain = [loops[i] for i in ref.loops if i in loops]
    sub = ref.subscripts[0]
    if carrier not in chain or sub.poly is None or sub.indirect:
        return None
    poly = _fold(sub.poly, macros)
    for inner in chain[chain.index(carrier) + 1 :]:
        name = inner.var or ""
        if (
            not name
            or inner.lower is None
            or inner.step != 1
            or inner.cond_op not in ("<", "<=")
            or poly.coeff(name) != 1
            or not _linear_in(poly, name)
        ):
            continue
        lower = _fold(inner.lower, macros)
        stride = poly.coeff(var) + lower.coeff(var)
        if stride <= 0 or not (_linear_in(poly, var) and _linear_in(lower, var)):
            continue
        count = _count(inner, lower, macros)
        if count is None:
            continue
        shown = _stride_text(stride, (sub.poly, inner.lower), macros)
        return (
            f"iterations of `{var}` start {shown} elements apart and each "
            f"reaches `{count}` of them (the values of `{name}`, line "
            f"{inner.line}): they stay apart only if `{count}` never exceeds "
            f"{shown}, which nothing here shows"
        )
    return None


def segment_note(
    dep: Dependence,
    refs: Mapping[Span, Ref],
    loop: Loop | None,
    macros: Mapping[str, int],
) -> str | None:
    """The count a segment loop's iterations would need bounded, or None.

    Only where every reference to the array in the loop has the same row
    subscript (a row meets itself in another iteration).
    """
    if loop is None or dep.carrier is None:
        return None
    source, sink = refs.get(dep.source), refs.get(dep.sink)
    if source is None or sink is None:
        return None
    # Every reference to the array on the same row: a shifted one elsewhere
    # (`p[iOff + 1]`) collides whatever the count, and the refusal shows one
    # dependence per line. Columns may differ (`p[iOff][0]`, `p[iOff][1]`).
    named = [r for r in refs.values() if r.name == dep.array]
    if any(not r.subscripts for r in named):
        return None
    if len({r.subscripts[0].text for r in named}) != 1:
        return None
    loops = {x.id: x for x in loop.walk()}
    carrier = loops.get(dep.carrier)
    if carrier is None or not carrier.var:
        return None
    return _segment(source, carrier, loops, macros)
