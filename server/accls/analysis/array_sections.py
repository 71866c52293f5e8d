"""Array sections (`a[start:length]`) that cover what a loop nest touches."""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis.aliasing import array_decl
from accls.analysis.analyze import FileAnalysis
from accls.analysis.inequalities import proves_nonnegative
from accls.analysis.modulo_sections import dividend, modulo_range, plain_names
from accls.analysis.section_rows import contiguous
from accls.frontend import Loop, Poly, Ref, Var
from accls.frontend.exprs import expression_poly

__all__ = [
    "ArrayUse",
    "array_uses",
    "loop_array_uses",
    "plain_names",
    "union_section",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ArrayUse:
    """How a loop nest uses one array, and the section that covers it."""

    name: str
    read: bool
    written: bool
    read_first: bool  # some element may be read before this nest writes it
    section: str | None  # `a[0:n][0:m]`; None when the whole array is meant
    exact_cover: bool  # every element of the section is written (copyout is safe)
    known: bool  # the section could be derived (False: the extent is unknown)
    box: tuple[tuple[Poly, Poly], ...] | None = None  # (start, length) per dimension
    facts: tuple[Poly, ...] = ()  # loop extents (>= 0) that order the bounds


def _range(loop: Loop) -> tuple[Poly, Poly] | None:
    """Inclusive (low, high) of the loop variable, as polynomials."""
    if loop.lower is None or loop.upper is None or not loop.step:
        return None
    if loop.step > 0:
        strict = loop.cond_op in ("<", "!=")
        high = loop.upper - Poly.const(1) if strict else loop.upper
        return loop.lower, high
    strict = loop.cond_op in (">", "!=")
    low = loop.upper + Poly.const(1) if strict else loop.upper
    return low, loop.lower


def _sign(poly: Poly) -> int:
    """+1 or -1 if every coefficient has that sign (symbols assumed >= 0), else 0."""
    signs = {coeff > 0 for _, coeff in poly.terms}
    if signs == {True}:
        return 1
    if signs == {False}:
        return -1
    return 0


def _extreme(
    poly: Poly, ranges: list[tuple[str, Poly, Poly]], high: bool
) -> Poly | None:
    """Bound `poly` from below (or above) over the nest's iteration space."""
    for var, low, top in ranges:  # innermost first: their bounds may use outer vars
        if var not in poly.names():
            continue
        with_var = Poly(tuple(t for t in poly.terms if var in t[0]))
        rest = poly - with_var
        if any(mono.count(var) > 1 for mono, _ in with_var.terms):
            return None
        coeff = Poly(
            tuple((tuple(n for n in m if n != var), c) for m, c in with_var.terms)
        )
        sign = _sign(coeff)
        if sign == 0:
            return None
        pick = top if (sign > 0) == high else low
        poly = rest + coeff * pick
    return poly


def _pick(a: Poly, b: Poly, high: bool, facts: list[Poly]) -> Poly | None:
    """The larger (or smaller) of two bounds, when the loop bounds decide it."""
    diff = a - b
    if proves_nonnegative(diff, facts):
        return a if high else b
    if proves_nonnegative(-diff, facts):
        return b if high else a
    return None


def _subscripts(ref: Ref) -> list[Poly | None]:
    if ref.deref and not ref.subscripts:
        return [Poly.const(0)]
    return [s.poly if not s.indirect else None for s in ref.subscripts]


def _whole(var: Var | None) -> bool:
    """Static arrays with constant extents need no section."""
    return (
        var is not None
        and (var.scope != "param" or var.shaped)
        and var.pointers == 0
        and bool(var.dims)
        and all(d is not None for d in var.dims)
    )


def _reads_covered(refs: list[Ref]) -> bool:
    """True if every read follows a write of the same element in its iteration."""
    seen: list[Ref] = []
    for ref in refs:  # evaluation order
        if ref.is_read:
            key = tuple(s.text for s in ref.subscripts)
            if not any(
                tuple(s.text for s in w.subscripts) == key
                and ref.context[: len(w.context)] == w.context
                for w in seen
            ):
                return False
        if ref.is_write:
            seen.append(ref)
    return True


def _unconditional(ref: Ref, loop_id: int) -> bool:
    """True if nothing between the loop and the reference may skip it."""
    if loop_id not in ref.context:
        return False
    return all(c >= 0 for c in ref.context[ref.context.index(loop_id) + 1 :])


def _write_nest(refs: list[Ref], root: Loop) -> dict[str, Loop] | None:
    """The loops around the writes, by name, when every write has the same ones."""
    chains = {r.loops for r in refs if r.is_write}
    if len(chains) != 1:
        return None
    chain = chains.pop()
    return {
        inner.var: inner for inner in root.walk() if inner.id in chain and inner.var
    }


def _covers(refs: list[Ref], nest: dict[str, Loop], root: int) -> bool:
    """True if the writes alone touch every element of the section (no holes)."""
    writes = [r for r in refs if r.is_write]
    if not writes or not all(_unconditional(r, root) for r in writes):
        return False
    if len({tuple(s.text for s in r.subscripts) for r in writes}) != 1:
        return False
    used: list[str] = []
    by_id = {inner.id: inner for inner in nest.values()}
    for poly in _subscripts(writes[0]):
        if poly is None or not poly.is_affine:
            return False
        loop_vars = poly.names() & nest.keys()
        if not loop_vars:
            continue
        if len(loop_vars) > 1:
            return False
        var = next(iter(loop_vars))
        loop = nest[var]
        bounds = (loop.lower or Poly()).names() | (loop.upper or Poly()).names()
        if (
            abs(poly.coeff(var)) != 1
            or loop.step not in (1, -1)
            or bounds & nest.keys()
        ):
            return False
        used.append(var)
    if not all(_runs(by_id.get(k), used) for k in _inside(writes[0], root)):
        return False  # a loop of zero trips around the write leaves holes
    return len(set(used)) == len(used)


def _inside(ref: Ref, root: int) -> tuple[int, ...]:
    """Ids of the loops between the nest's root and the reference."""
    if root not in ref.loops:
        return ref.loops
    return ref.loops[ref.loops.index(root) + 1 :]


def _runs(loop: Loop | None, used: list[str]) -> bool:
    """True if the loop indexes the write, or surely runs at least once."""
    if loop is None or not loop.var:
        return False
    if loop.var in used:
        return True  # zero trips here empty the section's dimension instead
    found = _range(loop)
    if found is None:
        return False
    low, high = found
    span = high - low
    return span.is_constant and span.constant >= 0


def array_uses(
    loop: Loop, decl_of: dict[str, Var | None], ref_filter: frozenset[str] | None = None
) -> tuple[ArrayUse, ...]:
    """Each array the nest touches, with the section an offload must move."""
    ranges: list[tuple[str, Poly, Poly]] = []
    nest = {inner.var: inner for inner in loop.walk() if inner.var}
    by_loop: dict[int, tuple[str, Poly, Poly]] = {}
    for inner in reversed(loop.walk()):
        found = _range(inner)
        if inner.var and found is not None:
            ranges.append((inner.var, *found))
            by_loop[inner.id] = (inner.var, *found)
    # Sibling loops that reuse a name (`for (y < 5)`, then `for (y < 5 * n)`):
    # a reference's `y` is its own loop's, so each one takes the ranges of the
    # loops around it, and the writes cover only through their own loops.
    reused = len(nest) < sum(1 for inner in loop.walk() if inner.var)
    groups: dict[str, list[Ref]] = {}
    mine = {v.name for v in loop.locals}  # declared in the body: never moved
    for ref in loop.refs:
        if (ref.subscripts or ref.deref) and ref.name not in mine:
            groups.setdefault(ref.name, []).append(ref)
    variant = frozenset(
        {inner.var for inner in loop.walk() if inner.var}
        | {v.name for v in loop.locals}
        | {r.name for r in loop.refs if r.is_write and not r.subscripts and not r.deref}
    )
    out: list[ArrayUse] = []
    for name, refs in sorted(groups.items()):
        if ref_filter is not None and name not in ref_filter:
            continue
        read = any(r.is_read for r in refs)
        written = any(r.is_write for r in refs)
        read_first = read and not _reads_covered(refs)
        var = decl_of.get(name)
        box = _box(refs, ranges, variant, by_loop if reused else None)
        widened = contiguous(box, var, path=not name.isidentifier())
        section, known, full = _section(name, widened, var)
        cover = _write_nest(refs, loop) if reused else nest
        out.append(
            ArrayUse(
                name=name,
                read=read,
                written=written,
                read_first=read_first,
                section=section,
                exact_cover=written
                and widened == box
                and cover is not None
                and _covers(refs, cover, loop.id)
                and (section is not None or full),
                known=known,
                box=tuple(widened) if widened is not None else None,
                facts=tuple(top - low for _, low, top in ranges),
            )
        )
    return tuple(out)


def union_section(uses: list[ArrayUse]) -> tuple[str | None, bool]:
    """The section covering several uses of one array: (text or None, known)."""
    if all(use.section is None and use.known for use in uses):
        return None, True  # a static array, moved whole
    boxes = [use.box for use in uses]
    if any(box is None for box in boxes) or len({len(b or ()) for b in boxes}) != 1:
        return None, False
    facts = [fact for use in uses for fact in use.facts]
    dims: list[str] = []
    partial = False  # an outer dimension spans more than one row
    for d in range(len(boxes[0] or ())):
        low: Poly | None = None
        high: Poly | None = None
        for box in boxes:
            assert box is not None
            start, length = box[d]
            end = start + length - Poly.const(1)
            low = start if low is None else _pick(low, start, False, facts)
            high = end if high is None else _pick(high, end, True, facts)
            if low is None or high is None:
                return None, False
        assert low is not None
        assert high is not None
        length = high - low + Poly.const(1)
        if partial and any(box[d] != (boxes[0] or ())[d] for box in boxes if box):
            return None, False  # rows of different widths: not contiguous storage
        partial = partial or not (length.is_constant and length.constant == 1)
        dims.append(f"[{low.render()}:{length.render()}]")
    return uses[0].name + "".join(dims), True


def _full(box: list[tuple[Poly, Poly]] | None, var: Var | None) -> bool:
    """True when the box is the whole declared array."""
    if box is None or var is None or len(box) != len(var.dims):
        return False
    for (low, length), dim in zip(box, var.dims, strict=True):
        if dim is None or not low.is_constant or low.constant != 0:
            return False
        if "".join(length.render().split()) != "".join(dim.split()):
            return False
    return True


def _section(
    name: str, box: list[tuple[Poly, Poly]] | None, var: Var | None
) -> tuple[str | None, bool, bool]:
    """(section text or None for the whole array, extent known, covers whole array)."""
    if _whole(var):
        return None, True, _full(box, var)
    if box is None:
        return None, False, False
    text = name + "".join(f"[{low.render()}:{length.render()}]" for low, length in box)
    return text, True, False


def _box(
    refs: list[Ref],
    ranges: list[tuple[str, Poly, Poly]],
    variant: frozenset[str],
    by_loop: dict[int, tuple[str, Poly, Poly]] | None = None,
) -> list[tuple[Poly, Poly]] | None:
    """(start, length) per dimension covering every reference, or None.

    None too when a bound still names something that changes inside the loop (a
    loop variable whose range is unknown, a scalar it writes): such a section
    would not even compile outside the loop.
    """
    rank = {len(_subscripts(r)) for r in refs}
    if len(rank) != 1:
        return None
    # Every loop runs at least once wherever the array is touched at all.
    facts = [top - low for _, low, top in ranges]
    dims: list[tuple[Poly, Poly]] = []
    for d in range(rank.pop()):
        low: Poly | None = None
        high: Poly | None = None
        for ref in refs:
            poly = _subscripts(ref)[d]
            lo: Poly | None
            hi: Poly | None
            own = ranges
            if by_loop is not None:
                own = [by_loop[k] for k in reversed(ref.loops) if k in by_loop]
            if poly is None:
                found = _modulo(ref, d, own, variant)
                if found is None:
                    return None
                lo, hi = found
            else:
                lo = _extreme(poly, own, high=False)
                hi = _extreme(poly, own, high=True)
            if lo is None or hi is None:
                return None
            low = lo if low is None else _pick(low, lo, False, facts)
            high = hi if high is None else _pick(high, hi, True, facts)
            if low is None or high is None:
                return None
        if low is None or high is None:
            return None
        if (low.names() | high.names()) & variant:
            return None
        dims.append((low, high - low + Poly.const(1)))
    return dims


def _modulo(
    ref: Ref, d: int, ranges: list[tuple[str, Poly, Poly]], variant: frozenset[str]
) -> tuple[Poly, Poly] | None:
    """The range of a subscript `e % m` (`0 .. m-1`), when `e` is never negative.

    `e`'s least value over the nest must be a constant of at least zero, a sum
    of sizes, or follow from the loops' extents (`i + n - 1` with `i >= 0` in a
    loop that runs while `i < n`).
    """
    if d >= len(ref.subscripts) or ref.subscripts[d].indirect:
        return None
    text = ref.subscripts[d].text
    top = dividend(text)
    poly = expression_poly(top) if top is not None else None
    lowest = _extreme(poly, ranges, high=False) if poly is not None else None
    facts = [high - low for _, low, high in ranges]
    nonnegative = (
        lowest is not None
        and not lowest.names() & variant
        and (
            (all(c > 0 for m, c in lowest.terms if m) and lowest.constant >= 0)
            or proves_nonnegative(lowest, facts)
        )
    )
    return modulo_range(text, nonnegative, variant)


def loop_array_uses(loop: Loop, analysis: FileAnalysis) -> tuple[ArrayUse, ...]:
    """`array_uses` for a loop with its declarations, computed once per file."""
    key = ("array_uses", loop.id)
    cached = analysis.shared.get(key)
    if isinstance(cached, tuple):
        return cached
    source = analysis.source
    fn = source.function(loop.function)
    names = {r.name for r in loop.refs if r.subscripts or r.deref}
    decls = {n: array_decl(n, fn, source.globals) for n in names}
    found = array_uses(loop, decls)
    analysis.shared[key] = found
    return found
