"""Array sections (`a[start:length]`) that cover what a loop nest touches."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from accls.analysis.aliasing import array_decl, string_literal
from accls.analysis.analyze import FileAnalysis
from accls.analysis.inequalities import proves_nonnegative
from accls.analysis.modulo_sections import plain_names
from accls.analysis.ref_guards import nest_guard_facts
from accls.analysis.section_box import (
    loop_range,
    pick_bound,
    section_box,
    subscript_polys,
)
from accls.analysis.section_guards import section_guards
from accls.analysis.section_rows import contiguous
from accls.frontend import Loop, Poly, Ref, Var

__all__ = [
    "ArrayUse",
    "array_uses",
    "loop_array_uses",
    "plain_names",
    "section_length",
    "unconditional",
    "union_section",
]

_INTEGER = re.compile(r"\(?\s*(\d+)[uUlL]*\s*\)?")


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
    fortran: bool = False  # a Fortran array: its sections are spelled `a(lo:hi)`
    # The integer macros among the symbols of its section (`N` 100): a length
    # `N - 2` is no negative one.
    constants: tuple[tuple[str, int], ...] = ()
    # Forms `>= 0` the program proves where the clause runs (`n - 3` under
    # `if (n >= 3)`, see `section_guards`): `n - 2` needs no clamp there.
    guards: tuple[Poly, ...] = ()


def section_length(
    length: Poly,
    fortran: bool = False,
    constants: Iterable[tuple[str, int]] = (),
    guards: Sequence[Poly] = (),
) -> str:
    """A section's length as written: clamped at 0 where it may be negative.

    `for (i = 1; i < n; i++) a[i] = ...` moves `a[1:n - 1]`, of length -1 when
    `n` is 0: the loop runs zero times, but the clause is still evaluated, and
    OpenMP requires a non-negative length (a runtime maps -1 elements as a huge
    size). A length with a negative constant or coefficient is written
    `(n - 1 > 0 ? n - 1 : 0)`, which both models accept; a length of counts
    alone (`a[0:n]`, `n * m`) is taken for what the loop runs, never negative,
    and so is one that `guards` (forms `>= 0` that hold where the clause runs)
    prove non-negative: `n - 2` under `if (n > 2)`. A Fortran section whose
    upper bound is below its lower one is empty: as is.
    """
    text = length.render()
    values = {name: Poly.const(value) for name, value in constants}
    folded = length.substitute(values) if values else length
    if fortran or not any(coeff < 0 for _, coeff in folded.terms):
        return text
    if guards and proves_nonnegative(
        folded, [g.substitute(values) if values else g for g in guards]
    ):
        return text
    return f"({text} > 0 ? {text} : 0)"


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


def unconditional(ref: Ref, loop_id: int) -> bool:
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
    if not writes or not all(unconditional(r, root) for r in writes):
        return False
    if len({tuple(s.text for s in r.subscripts) for r in writes}) != 1:
        return False
    used: list[str] = []
    by_id = {inner.id: inner for inner in nest.values()}
    for poly in subscript_polys(writes[0]):
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
    found = loop_range(loop)
    if found is None:
        return False
    low, high = found
    span = high - low
    return span.is_constant and span.constant >= 0


def array_uses(
    loop: Loop,
    decl_of: dict[str, Var | None],
    ref_filter: frozenset[str] | None = None,
    macros: Iterable[tuple[str, str]] = (),
    guards: Sequence[Poly] = (),
    ref_guards: Mapping[int, Sequence[Poly]] | None = None,
) -> tuple[ArrayUse, ...]:
    """Each array the nest touches, with the section an offload must move.

    `macros`: the file's object-like macros; integer ones tell lengths apart
    from negative ones (see `section_length`). `guards`: forms `>= 0` that
    hold where the nest's clauses run (see `section_guards`). `ref_guards`:
    by a reference's start byte, those that hold where it runs (`guard_facts`).
    """
    values = {
        name: int(number.group(1))
        for name, text in macros
        if (number := _INTEGER.fullmatch(text.strip()))
    }
    ranges: list[tuple[str, Poly, Poly]] = []
    nest = {inner.var: inner for inner in loop.walk() if inner.var}
    by_loop: dict[int, tuple[str, Poly, Poly]] = {}
    for inner in reversed(loop.walk()):
        found = loop_range(inner)
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
        if (ref.subscripts or ref.deref) and not (
            ref.name in mine or string_literal(ref.name)
        ):
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
        box = section_box(
            refs, ranges, variant, by_loop if reused else None, ref_guards
        )
        widened = contiguous(box, var, path=not name.isidentifier())
        fortran = any(r.fortran for r in refs)
        used = {n for _, length in widened or () for n in length.names()}
        known_values = tuple((n, v) for n, v in sorted(values.items()) if n in used)
        section, known, full = _section(
            name, widened, var, fortran, known_values, tuple(guards)
        )
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
                fortran=fortran,
                constants=known_values,
                guards=tuple(guards),
            )
        )
    return tuple(out)


def union_section(
    uses: list[ArrayUse], guards: Sequence[Poly] = ()
) -> tuple[str | None, bool]:
    """The section covering several uses of one array: (text or None, known).

    `guards`: forms `>= 0` that hold where the covering clause runs (the uses'
    own hold at their loops, which may come after it).
    """
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
            low = start if low is None else pick_bound(low, start, False, facts)
            high = end if high is None else pick_bound(high, end, True, facts)
            if low is None or high is None:
                return None, False
        assert low is not None
        assert high is not None
        length = high - low + Poly.const(1)
        if partial and any(box[d] != (boxes[0] or ())[d] for box in boxes if box):
            return None, False  # rows of different widths: not contiguous storage
        partial = partial or not (length.is_constant and length.constant == 1)
        shown = section_length(length, uses[0].fortran, uses[0].constants, guards)
        dims.append(f"[{low.render()}:{shown}]")
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
    name: str,
    box: list[tuple[Poly, Poly]] | None,
    var: Var | None,
    fortran: bool,
    constants: tuple[tuple[str, int], ...],
    guards: tuple[Poly, ...],
) -> tuple[str | None, bool, bool]:
    """(section text or None for the whole array, extent known, covers whole array)."""
    if _whole(var):
        return None, True, _full(box, var)
    if box is None:
        return None, False, False
    text = name + "".join(
        f"[{low.render()}:{section_length(length, fortran, constants, guards)}]"
        for low, length in box
    )
    return text, True, False


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
    guards = section_guards(loop, analysis)
    own = nest_guard_facts(loop, fn, source, analysis.shared)
    found = array_uses(loop, decls, macros=source.macros, guards=guards, ref_guards=own)
    analysis.shared[key] = found
    return found
