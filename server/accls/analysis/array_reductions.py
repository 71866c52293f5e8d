"""Array reductions: `reduction(+:hist[0:16])` for arrays a loop only accumulates into.

An OpenMP loop whose every access to an array is the update `a[e] op= v` (or
`a[e] = a[e] op v`) with one operator can give each thread a private copy of the
part of the array it updates, combined at the end, as experts write for
histograms and column sums. The clause names a section, and each thread gets a
copy of the whole section, so this holds only where the section is sure to hold
every index the loop updates and is known before the loop starts:

- through a pointer: one dimension, indices that are constants or the
  variables of inner loops with constant bounds (`c[y]`, `0 <= y < 10`:
  `c[0:10]`), or one loop-invariant index (`p[x]`: `p[x:1]`), updated on no
  condition, and only where the loop surely runs, since the clause adds into the
  section even when it runs no iteration (a null `c` at `n == 0` crashes);
- for a one-dimensional fixed-size array object (a local or a global, not a
  parameter, which is a pointer), always its whole extent, `reduction(+:hist)`:
  any in-bounds index (a data bin `hist[b]`) lies there, and clang 14 computes
  wrong sums for a section of a global array (`dc[0:12]`), not for the whole.

Rows of a matrix are refused: the clause would copy the whole matrix per thread.
Offloaded, the clause layer also keeps the copies small (`DEVICE_REDUCTION_ELEMENTS`).

A section of variable length is refused: gcc 12's libgomp crashes on a
zero-length one (`h[0:n]` with `n == 0`), and a negative one is worse. Only
OpenMP gets these: gcc 12 fails with an internal error on an OpenACC
`parallel loop` with an array reduction, so OpenACC keeps its answer.
"""

from __future__ import annotations

import re

from accls.analysis.model import ArrayReduction
from accls.analysis.narrow_sums import narrow_type
from accls.analysis.obstacles import PURE_FUNCTIONS, user_calls
from accls.analysis.wide_totals import wide_type
from accls.frontend import Function, Loop, Poly, RedOp, Ref, SourceFile, Var

__all__ = ["MAX_ELEMENTS", "array_reductions"]

# A private copy per thread: a histogram, not a field. Larger arrays keep their
# answer (an atomic update, or a refusal).
MAX_ELEMENTS = 1 << 14

_OPS = frozenset(
    {RedOp.ADD, RedOp.MUL, RedOp.MIN, RedOp.MAX, RedOp.BAND, RedOp.BOR, RedOp.BXOR}
)
_ARITHMETIC = re.compile(
    r"^(?:(?:unsigned|signed|short|long|int|char|float|double)\s*)+$"
    r"|^(?:u?int(?:8|16|32|64)_t|size_t|ptrdiff_t|ssize_t)$"
)


def array_reductions(
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
    names: set[str],
    dialect: str,
    macros: dict[str, int],
    *,
    narrow: bool = False,
) -> tuple[ArrayReduction, ...]:
    """The arrays of `names` (carried by `loop`) it may reduce, with their sections.

    `narrow`: the user lets `float` totals be reassociated.
    """
    if dialect != "omp" or loop.fortran or not names:
        return ()
    # A call could read the shared array while the copies fill: only library
    # functions, or this file's pure ones where no other name reaches the array.
    pure = set(user_calls(loop, source))
    if any(c.name not in PURE_FUNCTIONS and c.name not in pure for c in loop.calls):
        return ()
    calls = any(c.name in pure for c in loop.calls)
    written = {r.name for r in loop.refs if r.is_write and not r.subscripts}
    out: list[ArrayReduction] = []
    for name in sorted(names):
        refs = [r for r in loop.refs if r.name == name]
        op = _one_op(refs)
        decl = _decl(name, fn, source)
        if op is None or decl is None:
            continue
        if calls and not _unreached(name, decl, fn):
            continue
        if op in (RedOp.MIN, RedOp.MAX) and re.search(r"float|double", decl.type):
            continue  # NaN: the scalar rules decide min/max of floating values
        rounded = op in (RedOp.ADD, RedOp.MUL) and not narrow
        if rounded and narrow_type(decl.type, source):
            continue  # a `float` total per element: its digits follow the grouping
        if wide_type(decl.type, source):
            continue  # over eight bytes: its combine needs libatomic with clang
        found = _section(loop, refs, decl, written, macros)
        if found is None:
            continue
        section, elements = found
        out.append(
            ArrayReduction(
                name=name,
                op=op,
                section=section,
                elements=elements,
                line=refs[0].span.line,
                why=(
                    f"every access to `{name}` in the loop is an update with "
                    f"`{op.value}`, at indices inside "
                    + (f"`{name}{section}`" if section else "its fixed extent")
                    + ": each thread accumulates into a private copy"
                ),
            )
        )
    return tuple(out)


def _one_op(refs: list[Ref]) -> RedOp | None:
    """The one reduction operator of `refs`, all plain element updates; else None."""
    ops = {r.reduction for r in refs}
    if len(ops) != 1:
        return None
    op = next(iter(ops))
    if op is None or op not in _OPS:
        return None
    for ref in refs:
        plain = not (ref.deref or ref.member or ref.field or ref.escapes)
        if (
            ref.kind.value != "update"
            or not plain
            or ref.into
            or ref.copies
            or ref.atomic
            or not ref.subscripts
            or any(s.indirect for s in ref.subscripts)
        ):
            return None
    if len({len(r.subscripts) for r in refs}) != 1:
        return None
    return op


def _bounds(loop: Loop, macros: dict[str, int]) -> tuple[Poly | None, Poly | None]:
    """The bounds of `loop`, its integer macros (`NBINS`) replaced by their values."""
    values = {name: Poly.const(value) for name, value in macros.items()}
    lower, upper = loop.lower, loop.upper
    return (
        None if lower is None else lower.substitute(values),
        None if upper is None else upper.substitute(values),
    )


def _runs(loop: Loop, macros: dict[str, int]) -> bool:
    """Whether `loop` surely runs an iteration: constant bounds, not empty."""
    lower, upper = _bounds(loop, macros)
    return (
        lower is not None
        and upper is not None
        and lower.is_constant
        and upper.is_constant
        and loop.cond_op in ("<", "<=")
        and upper.constant > lower.constant
    )


def _unreached(name: str, decl: Var, fn: Function | None) -> bool:
    """Whether only `name[...]` reaches the local array: no pointer, no argument."""
    if fn is None or decl.scope != "local" or decl.static:
        return False
    where = decl.span
    return all(
        r.subscripts and not (r.escapes or r.into or r.copies or r.deref)
        for r in fn.refs
        if r.name == name
        # its declaration (`int h[16] = {0};`) names it too
        and not (where and where.start_byte <= r.span.start_byte < where.end_byte)
    )


def _decl(name: str, fn: Function | None, source: SourceFile) -> Var | None:
    """The declaration of `name`: a plain arithmetic array or pointer; else None."""
    decl = fn.lookup(name) if fn is not None else None
    if decl is None:
        decl = next((g for g in source.globals if g.name == name), None)
    if decl is None or decl.volatile or decl.unknown_shape or decl.device:
        return None
    return decl if _ARITHMETIC.match(decl.type.strip()) else None


def _section(
    loop: Loop,
    refs: list[Ref],
    decl: Var,
    written: set[str],
    macros: dict[str, int],
) -> tuple[str, int] | None:
    """The section text (`""` for the whole object) that holds every index, its size."""
    if len(refs[0].subscripts) != 1:
        return None  # a row of a matrix: the whole matrix would be copied
    # Under a condition, the serial run may touch none of the section, while the
    # clause combines into all of it: only a whole array object is sure to exist.
    guarded = any(r.guarded for r in refs)
    bounded = None if guarded else _bounded(loop, refs, written, macros)
    if decl.scope == "param" or decl.pointers or "*" in decl.levels:
        # The clause adds into the section even when the loop runs no iteration
        # (gcc 12: `c[0:10]` of a null `c` crashes at n == 0): it must have run.
        return None if bounded is None or not _runs(loop, macros) else bounded[:2]
    # A fixed-size array object: an index the loop does not bound (a data bin)
    # still lies in its extent, or the serial program is undefined too.
    if len(decl.dims) != 1:
        return None
    size = _extent(decl.dims[0], macros)
    if size is None or not 0 < size <= MAX_ELEMENTS:
        return None
    # The whole object even where a section would do: clang 14 miscompiles a
    # section of a global array (`reduction(+:dc[0:12])` summed 2.7e6 for
    # 3.6e6 at 4 threads), while the whole object is right with gcc and clang.
    return "", size


def _extent(text: str | None, macros: dict[str, int]) -> int | None:
    if text is None:
        return None
    text = text.strip()
    if text.isdigit():
        return int(text)
    return macros.get(text)


def _bounded(
    loop: Loop, refs: list[Ref], written: set[str], macros: dict[str, int]
) -> tuple[str, int, int | None] | None:
    """`[lo:len]` from inner loops of constant bounds, or `[e:1]` for one invariant.

    With its size, and the end of a constant section (None for `[e:1]`).
    """
    ranges = _inner_ranges(loop, macros)
    moving = written | {v.var for v in loop.walk() if v.var}
    lows: list[int] = []
    highs: list[int] = []
    invariant: set[str] = set()
    for ref in refs:
        poly = ref.subscripts[0].poly
        if poly is None or not poly.is_affine:
            return None
        names = poly.names()
        if all(v in ranges and ranges[v][0] in ref.loops for v in names):
            lo = hi = poly.constant
            for var in names:
                coef = poly.coeff(var)
                _, first, last = ranges[var]
                lo += min(coef * first, coef * last)
                hi += max(coef * first, coef * last)
            lows.append(lo)
            highs.append(hi)
        elif not names & moving:
            invariant.add(ref.subscripts[0].text)
        else:
            return None
    if lows and not invariant:
        low, high = min(lows), max(highs)
        if low < 0 or high - low + 1 > MAX_ELEMENTS:
            return None
        return f"[{low}:{high - low + 1}]", high - low + 1, high + 1
    if len(invariant) == 1 and not lows:
        return f"[{next(iter(invariant))}:1]", 1, None
    return None


def _inner_ranges(
    loop: Loop, macros: dict[str, int]
) -> dict[str, tuple[int, int, int]]:
    """Inner loop variable -> (its loop, first, last value), for constant bounds."""
    out: dict[str, tuple[int, int, int]] = {}
    clash: set[str] = set()
    for inner in loop.walk():
        if inner is loop or not inner.var:
            continue
        var = inner.var
        if var in out or var in clash:
            clash.add(var)  # two loops of one name: neither range is sure
            continue
        lower, upper = _bounds(inner, macros)
        if lower is None or upper is None:
            clash.add(var)
            continue
        if not (lower.is_constant and upper.is_constant):
            clash.add(var)
            continue
        head = inner.header
        steps = [
            r
            for r in inner.refs
            if r.name == var
            and r.is_write
            and not head.start_byte <= r.span.start_byte < head.end_byte
        ]
        if (
            inner.step is None
            or inner.step <= 0
            or inner.cond_op not in ("<", "<=")
            or steps  # the body changes it too
        ):
            clash.add(var)
            continue
        first = lower.constant
        last = upper.constant - (1 if inner.cond_op == "<" else 0)
        if last >= first:
            out[var] = (inner.id, first, last)
    return {v: r for v, r in out.items() if v not in clash}
