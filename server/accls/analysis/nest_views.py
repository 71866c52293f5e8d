"""Each array reference of a loop nest as the dependence test sees it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from accls.analysis.access_paths import member_var
from accls.analysis.delinearize import (
    Frame,
    Model,
    base_name,
    domain_rows,
    model_subscripts,
    on_side,
)
from accls.analysis.pointer_copies import invariant_copy
from accls.analysis.polyhedra import Row
from accls.analysis.subscript_tests import box_widths
from accls.frontend import Loop, Poly, Ref, SourceFile, Span, Subscript
from accls.frontend.exprs import expression_poly

__all__ = ["NestViews", "View", "integer_macros", "nest_views"]

_DEREF = (Subscript("0", Poly()),)  # `*p` is `p[0]`


@dataclass(frozen=True, slots=True)
class View:
    """One array reference: its frame, iteration domain and modelled subscripts."""

    ref: Ref
    frame: Frame
    domains: tuple[tuple[Row, ...], tuple[Row, ...]]  # its domain on sides s and t
    widths: tuple[int | None, ...] | None  # box_widths of the domain
    subscripts: Model | str  # a string says why they cannot be modelled

    @property
    def texts(self) -> tuple[Subscript, ...]:
        """The subscripts as written (`*p` reads as `p[0]`)."""
        return self.ref.subscripts or _DEREF


@dataclass(frozen=True, slots=True, kw_only=True)
class NestViews:
    """The references of every array the nest writes, and facts they share."""

    arrays: Mapping[str, tuple[View, ...]]  # in evaluation order
    unordered: frozenset[int]  # loops whose variable does not order iterations
    # Per name, the loops around its writes: a symbol (`k`, `s.n`, `q->k`) and
    # an array's pointer (`p = q` for `p`, `s.v = w` for `s.v`) stay fixed during
    # any loop that holds none of their writes.
    symbol_writes: Mapping[str, frozenset[int]]
    pointer_writes: Mapping[str, frozenset[int]]

    def loops_writing(self, symbol: str) -> frozenset[int]:
        """Ids of the loops around any write to `symbol` or to its base variable."""
        found = self.symbol_writes.get(symbol, frozenset())
        return found | self.symbol_writes.get(base_name(symbol), frozenset())

    def loops_assigning(self, array: str) -> frozenset[int]:
        """Ids of the loops around an assignment to the pointer `array` or its base."""
        found = self.pointer_writes.get(array, frozenset())
        return found | self.pointer_writes.get(base_name(array), frozenset())


def _inside(span: Span, outer: Span) -> bool:
    return outer.start_byte <= span.start_byte and span.end_byte <= outer.end_byte


def _is_array(ref: Ref) -> bool:
    return bool(ref.subscripts) or ref.deref


def _unordered(loops: Sequence[Loop], writes: Sequence[Ref]) -> frozenset[int]:
    """Loops whose variable does not identify an iteration."""
    return frozenset(
        loop.id
        for loop in loops
        if loop.var is None
        or not (loop.step or loop.step_symbol)
        or any(w.name == loop.var and _inside(w.span, loop.body) for w in writes)
    )


_Domain = tuple[tuple[tuple[Row, ...], tuple[Row, ...]], tuple[int | None, ...] | None]


def _domain(frame: Frame) -> _Domain:
    rows = domain_rows(frame)
    first = on_side(rows, "s")
    widths = box_widths(first, len(frame.loops))
    return (first, on_side(rows, "t")), None if widths is None else tuple(widths)


def _enclosing(
    refs: Sequence[Ref], names: Sequence[set[str]]
) -> dict[str, frozenset[int]]:
    """For each name, the ids of every loop around a reference that writes it."""
    out: dict[str, set[int]] = {}
    for ref, written in zip(refs, names, strict=True):
        for name in written:
            out.setdefault(name, set()).update(ref.loops)
    return {name: frozenset(ids) for name, ids in out.items()}


def _loop_var_writes(loop: Loop, above: tuple[int, ...] = ()) -> dict[str, set[int]]:
    """Each loop variable is written by its own loop, inside the loops above it."""
    around = (*above, loop.id)
    out: dict[str, set[int]] = {loop.var: set(around)} if loop.var else {}
    for child in loop.children:
        for name, ids in _loop_var_writes(child, around).items():
            out.setdefault(name, set()).update(ids)
    return out


def _folded(
    subscripts: Sequence[Subscript], values: Mapping[str, Poly]
) -> tuple[Subscript, ...]:
    """The subscripts with the integer macros of a product folded in.

    `i * S + j` with `S` 8 is `8 * i + j`: a product of a macro and a loop variable
    is no affine form, though the macro has one value. Affine subscripts stay as
    they are (the macros' values are facts of the domain already).
    """
    out = []
    for sub in subscripts:
        poly = sub.poly
        if poly is not None and not poly.is_affine and poly.names() & values.keys():
            sub = replace(sub, poly=poly.substitute(values))
        out.append(sub)
    return tuple(out)


def integer_macros(macros: Sequence[tuple[str, str]]) -> dict[str, int]:
    """The object-like macros (name, replacement) whose value is an integer.

    A replacement over other such macros counts too: `GX` is 202 for
    `#define GX (NX + 2)` and `#define NX 200`.
    """
    if isinstance(macros, tuple):  # a file's macros: asked once per loop
        return dict(_integer_macros_cached(macros))
    return _integer_macros(macros)


@lru_cache(maxsize=8)
def _integer_macros_cached(macros: tuple[tuple[str, str], ...]) -> dict[str, int]:
    return _integer_macros(macros)


def _integer_macros(macros: Sequence[tuple[str, str]]) -> dict[str, int]:
    polys: dict[str, Poly | None] = {}
    clash: set[str] = set()
    for name, text in macros:
        value = expression_poly(text)
        if name in polys and polys[name] != value:
            clash.add(name)  # defined again as something else: no one value
        polys[name] = value
    out: dict[str, int] = {}
    pending = {n: v for n, v in polys.items() if n not in clash and v is not None}
    while pending:
        found = {
            name: value.substitute({n: Poly.const(v) for n, v in out.items()}).constant
            for name, value in pending.items()
            if value.names() <= out.keys()
        }
        if not found:
            break
        out.update(found)
        pending = {n: v for n, v in pending.items() if n not in found}
    return out


def owned_elements(root: Loop, seen: SourceFile) -> frozenset[str]:
    """The arrays the nest writes that are a C++ container member's elements.

    `g.m_v[k]` of a `std::vector<double> m_v` lies in the buffer the vector
    owns, which holds numbers only: a store there changes no other member of
    `g` (`g.m_ny`), as a store through a C pointer field might.
    """
    fn = seen.function(root.function)
    out = set()
    for ref in root.refs:
        if not ref.is_write or not ref.subscripts or ref.deref or not ref.member:
            continue
        var = member_var(ref.name, fn, seen.globals, seen.types)
        if var is not None and var.container and var.type != "<row>":
            out.add(ref.name)
    return frozenset(out)


def nest_views(
    root: Loop,
    constants: Mapping[str, int] | None = None,
    stable: frozenset[str] = frozenset(),
    relations: tuple[tuple[Poly, bool], ...] = (),
    seen: SourceFile | None = None,
) -> NestViews:
    """A View of every reference to an array that the nest `root` writes.

    `constants`: the values of integer macros (`RADIUS`), facts of every domain;
    `stable`: locals and parameters whose address is never taken; `relations`:
    facts of scalars fixed before the nest (symbol_facts); `seen`: the file,
    whose C++ container members' elements change no symbol (owned_elements).
    """
    owned = owned_elements(root, seen) if seen is not None else frozenset()
    known = tuple(sorted((constants or {}).items()))
    values = {name: Poly.const(value) for name, value in known}
    loops = {loop.id: loop for loop in root.walk()}
    writes = [r for r in root.refs if r.is_write]
    scalars = [r for r in writes if not _is_array(r)]
    # A field write `s.n = 0` or a store through `q` changes every `s.n`/`q->k`
    # symbol: the base name marks them all.
    symbol_writes = _enclosing(
        writes,
        [
            (set() if r.name in owned else {base_name(r.name)})
            | (set() if _is_array(r) else {r.name})
            for r in writes
        ],
    )
    pointer_writes = _enclosing(scalars, [{r.name} for r in scalars])
    for name in {r.name for r in scalars if r.copies}:
        # `p = particles;` first in each iteration of a loop: fixed across it.
        moving = frozenset(
            i
            for i in pointer_writes[name]
            if not invariant_copy(loops[i], name, stable)
        )
        if moving:
            pointer_writes[name] = moving
        else:
            del pointer_writes[name]
    for name, ids in _loop_var_writes(root).items():
        symbol_writes[name] = symbol_writes.get(name, frozenset()) | ids
    symbols = frozenset(symbol_writes)
    unordered = _unordered(tuple(loops.values()), scalars)
    written = {r.name for r in writes if _is_array(r)}
    domains: dict[object, _Domain] = {}
    arrays: dict[str, list[View]] = {}
    for ref in root.refs:
        if not _is_array(ref) or ref.name not in written:
            continue
        chain = tuple(loops[i] for i in ref.loops if i in loops)
        free = frozenset(
            level
            for level, loop in enumerate(chain)
            if loop.id in unordered or _inside(ref.span, loop.header)
        )
        frame = Frame(chain, symbols, free, known, relations)
        key = (tuple(loop.id for loop in chain), free)
        if key not in domains:
            domains[key] = _domain(frame)
        texts = _folded(ref.subscripts, values) if ref.subscripts else _DEREF
        subs = model_subscripts(ref.name, texts, frame, ref.fortran)
        if ref.deref and ref.subscripts:
            subs = f"`{ref.name}` is reached through a subscripted pointer"
        arrays.setdefault(ref.name, []).append(View(ref, frame, *domains[key], subs))
    return NestViews(
        arrays={name: tuple(views) for name, views in arrays.items()},
        unordered=unordered,
        symbol_writes=symbol_writes,
        pointer_writes=pointer_writes,
    )
