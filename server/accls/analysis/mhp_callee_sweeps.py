"""Array elements a task's callee reads and writes over a loop, placed at the call.

`#pragma omp task` / `restrict_grid(coarse, fine, n);` with the callee's
`for (int i = 0; i < n; i++) c[i] = ...`: the task writes `coarse[i]` for every
`i` below the caller's `n`. Each such access joins the region's as the caller's
array at the call, swept by the callee's loop with its bounds in the caller's
names, so the creator's later `coarse[i]` over the same range meets it.

Only the plain case is followed: a call in an explicit task's body to a function
of the file with no OpenMP call but queries and no jump but a final `return`; a
one-subscript access outside any branch in one unit-step loop of the callee,
affine in its variable; the array a global the callee does not shadow, the
caller's array (a name the call passes whole, not private to the task), or an
array member of the caller's record passed by address (`produce(&s)`: the
callee's `s->raw` is the caller's `s.raw`, which neither sets); the bounds and
subscript over parameters given invariant names or literals, such members, and
integer macros.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from accls.analysis.macro_fold import folded_poly
from accls.analysis.mhp_bounds import Sweep, invariant_symbol, sweep_of
from accls.analysis.mhp_callee_pointers import pointer_members
from accls.analysis.mhp_constructs import contains, first_word
from accls.analysis.mhp_env import Environment, Location
from accls.analysis.mhp_steady_members import callee_scalar_members
from accls.analysis.mhp_tasks import Task
from accls.analysis.range_splitters import split_leaf
from accls.frontend import Call, Function, Loop, Poly, Ref, Region, SourceFile
from accls.frontend.exprs import expression_poly

__all__ = ["callee_sweeps"]

_IDENT = re.compile(r"[A-Za-z_]\w*")
_ADDRESS = re.compile(r"&\s*([A-Za-z_]\w*)")
_ARROW = re.compile(r"([A-Za-z_]\w*)->([A-Za-z_]\w*)")
_JUMP = re.compile(rb"\b(?:return|break|continue|goto|longjmp|exit)\b")


def callee_sweeps(
    region: Region,
    fn: Function,
    source: SourceFile,
    env: Environment,
    tasks: list[Task],
    inner: list[Region],
) -> list[tuple[Call, Ref, Location]]:
    """(call, access renamed to the caller's array, where it lands) per access.

    `inner`: the region's constructs, whose clauses may make an array private.
    """
    out: list[tuple[Call, Ref, Location]] = []
    arrays = {v.name for v in (*fn.locals, *fn.params, *source.globals) if v.dims}
    # A pointer the region shares and never sets points to one block for every
    # thread and task: `double *x = s->x;` before the region, `produce(x, n)`.
    arrays |= {
        v.name
        for v in (*fn.locals, *fn.params)
        if v.pointers and not v.dims and v.name in env.invariant
    }
    moved = _moved(region, fn, source)
    for call in fn.call_sites:
        at = call.span.start_byte
        if not contains(region, at) or not _run_once(at, tasks, inner):
            continue
        call = split_leaf(call, source) or call  # the leaf a splitter reaches
        callee = source.function(call.name)
        if callee is None or callee is fn or not _plain(callee, source):
            continue
        names = _arguments(call, callee, source, env, arrays, moved)
        if names is None:
            continue
        span = (region.span.start_byte, region.span.end_byte)
        for param, arg in zip(callee.params, call.args, strict=True):
            if param.pointers == 1 and arg.strip() in env.invariant:
                steady = callee_scalar_members(
                    param.name, arg.strip(), callee, fn, source, span
                )
                names = {**steady, **names}
        chain = [c for c in inner if contains(c, at)]
        names = {
            k: v
            for k, v in names.items()
            if not isinstance(v, str) or not env.is_private(v.split(".")[0], at, chain)
        }
        loops = {lp.id: lp for lp in source.loops() if _in_function(callee, lp.id)}
        for ref in callee.refs:
            found = _located(ref, callee, names, loops, source, env, call)
            if found is not None:
                out.append((call, replace(ref, name=found.name), found))
    return out


def _run_once(at: int, tasks: list[Task], inner: list[Region]) -> bool:
    """True in an explicit task or a `section`: one thread makes the call, once."""
    return any(t.id < at < t.span_end for t in tasks) or any(
        first_word(c) == "section" and contains(c, at) for c in inner
    )


def _moved(region: Region, fn: Function, source: SourceFile) -> set[str]:
    """What the region sets whole: a structure or a member, itself or by a call.

    `&s` handed to a callee of the file that sets no `p->f` itself moves nothing.
    """
    calls = [c for c in fn.call_sites if contains(region, c.span.start_byte)]
    out: set[str] = set()
    for ref in fn.refs:
        at = ref.span.start_byte
        if not ref.is_write or ref.subscripts or not contains(region, at):
            continue
        call = next(
            (c for c in calls if c.span.start_byte <= at < c.span.end_byte), None
        )
        callee = source.function(call.name) if call is not None else None
        if callee is None or any(
            r.member and r.is_write and not r.subscripts for r in callee.refs
        ):
            out.add(ref.name)
    return out


def _in_function(fn: Function, pos: int) -> bool:
    """True when byte `pos` lies in the function."""
    return fn.span.start_byte <= pos < fn.span.end_byte


def _plain(callee: Function, source: SourceFile) -> bool:
    """No OpenMP call but queries, and no jump but a `return` past every loop."""
    if any(c.startswith("omp_") and not c.startswith("omp_get_") for c in callee.calls):
        return False
    start, end = callee.span.start_byte, callee.span.end_byte
    last = max(
        (lp.span.end_byte for lp in source.loops() if start <= lp.id < end),
        default=start,
    )
    for jump in _JUMP.finditer(source.data, start, end):
        if jump.group(0) != b"return" or jump.start() < last:
            return False
    return True


def _arguments(
    call: Call,
    callee: Function,
    source: SourceFile,
    env: Environment,
    arrays: set[str],
    moved: set[str],
) -> dict[str, Poly | str] | None:
    """Each parameter's argument: a Poly for a scalar, a name for an array."""
    if len(call.args) != len(callee.params):
        return None
    written = {r.name for r in callee.refs if r.is_write and not r.subscripts}
    out: dict[str, Poly | str] = {}
    constants = dict(env.constants)
    for param, arg in zip(callee.params, call.args, strict=True):
        text = arg.strip()
        if param.name in written:
            continue  # the parameter moves: not the argument's value
        if param.pointers or param.dims:
            if text in arrays and text not in env.threadprivate:
                out[param.name] = text
        elif text.isdigit():
            out[param.name] = Poly.const(int(text))
        elif text in constants:
            out[param.name] = Poly.const(constants[text])
        elif _IDENT.fullmatch(text) and text in env.invariant:
            out[param.name] = Poly.sym(text)
        elif (value := _invariant_value(text, env)) is not None:
            out[param.name] = value  # `2 * h`: over invariant names and literals
        address = _ADDRESS.fullmatch(text)
        if param.pointers == 1 and address and address.group(1) not in arrays:
            out |= _members(param.name, address.group(1), callee, moved)
        elif param.pointers == 1 and text in env.invariant:
            out |= pointer_members(param.name, text, callee, source, moved)
    return out


def _invariant_value(text: str, env: Environment) -> Poly | None:
    """An affine argument over invariant names and integer constants, or None.

    An argument no polynomial writes (`n / 2`) over such names is one symbol,
    spelled as `sweep_of` spells such a bound of a loop of the region.
    """
    if not text or _IDENT.fullmatch(text):
        return None
    constants = dict(env.constants)
    poly = folded_poly(text, constants, expression_poly(text))
    if poly is None:
        # `n / 2`: one value for every call of the region, as a loop bound's
        return invariant_symbol(text, env.invariant | set(constants))
    if not poly.is_affine:
        return None
    values = {n: Poly.const(constants[n]) for n in poly.names() if n in constants}
    poly = poly.substitute(values) if values else poly
    return poly if poly.names() <= env.invariant else None


def _members(
    param: str, var: str, callee: Function, moved: set[str]
) -> dict[str, Poly | str]:
    """`p->raw` as the caller's `s.raw` for `&s`: an array, or a fixed scalar.

    Neither the callee nor the caller may set the member itself.
    """
    out: dict[str, Poly | str] = {}
    for ref in callee.refs:
        match = _ARROW.fullmatch(ref.name) if ref.member else None
        if match is None or match.group(1) != param:
            continue
        mine = f"{var}.{match.group(2)}"
        set_ = any(
            r.name == ref.name and r.is_write and not r.subscripts for r in callee.refs
        )
        if set_ or mine in moved or var in moved:
            continue
        out[ref.name] = mine if ref.subscripts else Poly.sym(mine)
    return out


def _located(
    ref: Ref,
    callee: Function,
    names: Mapping[str, Poly | str],
    loops: Mapping[int, Loop],
    source: SourceFile,
    env: Environment,
    call: Call,
) -> Location | None:
    if len(ref.subscripts) != 1 or len(ref.loops) != 1 or ref.loops[0] not in loops:
        return None
    if ref.atomic or ref.guarded or ref.deref or ref.escapes:
        return None
    if ref.member and not isinstance(names.get(ref.name), str):
        return None  # a member path the call does not map to the caller's
    if any(c < 0 for c in ref.context):
        return None  # under a branch: maybe on no call
    target = names.get(ref.name)
    shadowed = callee.lookup(ref.name) is not None
    if isinstance(target, str):
        array = target
    elif not shadowed and ref.name in {g.name for g in source.globals if g.dims}:
        array = ref.name
    else:
        return None
    if array in env.threadprivate:
        return None
    loop = loops[ref.loops[0]]
    scalars = {k: v for k, v in names.items() if isinstance(v, Poly)}
    fresh = f"{call.name}.{loop.var}"  # no variable of the caller's
    values: dict[str, Poly] = {**scalars, str(loop.var): Poly.sym(fresh)}
    poly = ref.subscripts[0].poly
    if poly is None or not poly.is_affine or not poly.names() <= set(values):
        return None
    sweep = sweep_of(loop, frozenset(scalars), dict(env.constants))
    if sweep is None or sweep.low is None or sweep.high is None:
        return None
    low, high = _renamed(sweep.low, scalars), _renamed(sweep.high, scalars)
    if low is None or high is None:
        return None
    at = call.span
    bounds = (Sweep(fresh, at.start_byte, at.end_byte, low, high),)
    index = (poly.substitute(values).render(),)
    return Location(array, "loop", index, (poly.substitute(values),), bounds)


def _renamed(
    form: tuple[tuple[str, int], ...], scalars: Mapping[str, Poly]
) -> tuple[tuple[str, int], ...] | None:
    """A bound over parameters as one over the caller's names; None if not linear."""
    out: dict[str, int] = {}
    for key, coeff in form:
        value = Poly.const(1) if key == "1" else scalars.get(key)
        if value is None or not value.is_affine:
            return None
        for mono, c in value.terms:
            name = mono[0] if mono else "1"
            out[name] = out.get(name, 0) + coeff * c
    return tuple(sorted(out.items()))
