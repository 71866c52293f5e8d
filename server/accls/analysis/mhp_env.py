"""The data environment of a parallel region: what is private, where accesses land."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from accls.analysis.macro_fold import folded_poly
from accls.analysis.mhp_bounds import Sweep, enclosing, sweep_of
from accls.analysis.mhp_callees import is_static
from accls.analysis.mhp_constructs import NESTED_TID, nested_tids
from accls.analysis.mhp_cyclic import Blocked, Cyclic, blocked_loops, cyclic_loops
from accls.analysis.mhp_members import (
    member_paths,
    shared_through_member,
    steady_paths,
)
from accls.analysis.mhp_team_loops import TeamLoop, team_loops
from accls.analysis.mhp_uniform import everywhere_loops, set_once
from accls.analysis.nest_views import integer_macros
from accls.analysis.pragma_scope import associated_loops, clause_names, collapse_count
from accls.frontend import Function, Loop, Poly, Ref, Region, SourceFile
from accls.frontend.exprs import expression_poly

__all__ = ["Environment", "Location", "environment", "locate"]

# A task's `in_reduction` item is its own copy, combined at the taskgroup's end.
_PRIVATIZING = frozenset(
    {
        "private",
        "firstprivate",
        "lastprivate",
        "linear",
        "reduction",
        "in_reduction",
        "copyin",
    }
)
_NAME = re.compile(r"[A-Za-z_]\w*")
# A name or a structure's member path `s.n`, spaces removed: one value.
_TOKEN = re.compile(r"[A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*")
_C_WORDS = frozenset(
    "for while if int long short char float double unsigned signed const sizeof "
    "struct void return".split()
)
_TID = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*omp_get_thread_num\s*\(\s*\)")
_TEAM = "omp_get_team_num"
_SIZE = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*omp_get_num_threads\s*\(\s*\)")
_THREADPRIVATE = re.compile(r"#\s*pragma\s+omp\s+threadprivate\s*\(([^)]*)\)")


@dataclass(frozen=True, slots=True)
class Location:
    """Where an access lands: a variable, or an element of a shared array.

    `form` is "scalar"; "const" (the same element for every thread); "loop" (indexed
    by sequential loops every thread runs over the same range); "tid" (indexed by
    the thread number); "ws" (affine in the variables of the worksharing loops
    around it, each iteration run by one thread); "some" (an element a task of a
    callee writes, which one not followed); or "varying" (anything else:
    non-affine, or names whose values the model does not follow).
    """

    name: str
    form: str
    index: tuple[str, ...]  # subscript texts, spaces removed
    polys: tuple[Poly | None, ...] = ()  # their values, None where not polynomial
    bounds: tuple[Sweep, ...] = ()  # the ranges of the sequential loops around it
    nested: bool = False  # in a nested team: `omp_get_thread_num()` is not the thread's
    extent: int = 0  # form "some" (an element a callee's task writes): its extent


@dataclass(frozen=True, slots=True)
class Environment:
    """Names private to each thread, and names every thread sees with one value."""

    region: Region
    threadprivate: frozenset[str]
    declared: tuple[tuple[str, int, bool], ...]  # (name, declared at, static)
    loop_vars: tuple[tuple[str, int, int], ...]  # worksharing loop vars and spans
    invariant: frozenset[str]  # shared and never written in the region
    sweep_vars: frozenset[str]  # sequential loop vars over invariant bounds
    tid_vars: frozenset[str]
    arrays: frozenset[str]  # names declared with array extents
    clause_private: frozenset[str]  # privatized by the region's own clauses
    task_shared: frozenset[str] = frozenset()  # orphaned tasks: `shared(...)` names
    sweeps: tuple[Sweep, ...] = ()  # the sequential loops of `sweep_vars`
    shared_loops: tuple[Sweep, ...] = ()  # worksharing `for` loops with known bounds
    # Fortran `do` and `do concurrent` indices, private to the innermost parallel
    # or task construct around the loop (OpenMP 5.2, 5.1.1): name and loop span.
    own_indices: tuple[tuple[str, int, int], ...] = ()
    # Names set once from `omp_get_num_threads()` in the region: the team size.
    size_vars: frozenset[str] = frozenset()
    constants: tuple[tuple[str, int], ...] = ()  # integer macros and their values
    cyclic: tuple[Cyclic, ...] = ()  # loops dealing iterations to threads in turn
    blocked: tuple[Blocked, ...] = ()  # loops over a block of each thread's own
    team_loops: tuple[TeamLoop, ...] = ()  # loops every thread runs over the team
    everywhere: frozenset[int] = frozenset()  # `while` bodies every thread runs alike
    extents: tuple[tuple[str, tuple[int, ...]], ...] = ()  # arrays' inner extents
    lengths: tuple[tuple[str, int], ...] = ()  # one-subscript arrays' extents
    members: tuple[tuple[str, str, str], ...] = ()  # `s.v`: base, member kind

    def per_thread(self, text: str) -> set[str]:
        """Names in `text` whose value may differ from thread to thread."""
        # A member path of one value everywhere (`s.n`) is one name; else its base.
        names = {
            t if t in self.invariant else re.split(r"\.|->", t, maxsplit=1)[0]
            for t in _TOKEN.findall(_joined(text))
        } - _C_WORDS
        shared_loop = {v for v, _, _ in self.loop_vars}
        private = {d[0] for d in self.declared if not d[2]} | self.clause_private
        own = (names & (private | self.tid_vars)) - shared_loop - self.invariant
        return own | (names & {"omp_get_thread_num"})

    def thread_guard(self, condition: str) -> str | None:
        """`X` when the condition holds on one thread only: `tid == X` (a conjunct)."""
        for part in condition.strip().strip("()").split("&&"):
            sides = part.strip().strip("()").split("==")
            if len(sides) != 2:
                continue
            left, right = ("".join(x.split()).strip("()") for x in sides)
            for me, other in ((left, right), (right, left)):
                if me in self.tid_vars or me.rstrip("()") == "omp_get_thread_num":
                    return other
        return None

    def is_private(self, name: str, pos: int, chain: list[Region]) -> bool:
        """True if each thread (or task) has its own `name` at `pos`."""
        if name in self.threadprivate:
            return True
        for directive in (self.region.directive, *(c.directive for c in chain)):
            if name in clause_names((directive,), _PRIVATIZING):
                return True
            default = directive.clause("default")
            own = default is not None and (default.args or "").strip() in (
                "private",
                "firstprivate",
            )
            if own and name not in clause_names((directive,), frozenset({"shared"})):
                return True
        if name in self.task_shared:
            return False  # the creator's variable, which its tasks share
        for var, at, static in self.declared:
            if var == name and at <= pos:
                return not static
        if any(v == name and s <= pos < e for v, s, e in self.own_indices):
            return True
        return any(v == name and s <= pos < e for v, s, e in self.loop_vars)


def environment(
    region: Region,
    inner: list[Region],
    fn: Function,
    source: SourceFile,
    orphan: bool = False,
) -> Environment:
    """Collect what decides the sharing of each name in `region`.

    In an `orphan` (a function that makes tasks outside any parallel region of
    its own) the locals and parameters belong to the creating task: its tasks
    get private copies unless they name them in `shared(...)`.
    """
    start, end = region.span.start_byte, region.span.end_byte
    data = source.data
    params = [(p.name, start, False) for p in fn.params] if orphan else []
    task_shared: set[str] = set()
    if orphan:
        task_shared = clause_names(
            tuple(c.directive for c in inner), frozenset({"shared"})
        )
    declared = tuple(
        sorted(
            (
                *(
                    (v.name, v.span.start_byte, is_static(fn, v, data))
                    for v in fn.locals
                    if v.span is not None and start <= v.span.start_byte < end
                ),
                *params,
            ),
            key=lambda d: -d[1],
        )
    )
    loops = {loop.id: loop for loop in source.loops()}
    loop_vars: list[tuple[str, int, int]] = []
    split: list[Loop] = []
    for construct in (region, *inner):
        first = construct.directive.name.split()[0] if construct.directive.name else ""
        loop = loops.get(construct.span.start_byte)
        if loop is None or first not in ("for", "loop", "taskloop", "parallel", "simd"):
            continue
        words = set(construct.directive.name.split())
        if first == "parallel" and not words & {"for", "loop", "simd", "do"}:
            continue  # a bare `parallel` over a loop: every thread runs all of it
        if construct is not region and first in ("parallel", "simd"):
            continue  # every thread runs all of a nested team's or simd's iterations
        for assoc in associated_loops(loop, collapse_count(construct.directive)):
            if assoc.var:
                loop_vars.append((assoc.var, loop.span.start_byte, loop.span.end_byte))
                if first in ("for", "loop", "taskloop") and construct is not region:
                    split.append(assoc)
    # A write through `p[i]` or `*p` changes the pointee, not `p`.
    written = {
        r.name
        for r in fn.refs
        if r.is_write
        and not r.subscripts
        and not r.deref
        and start <= r.span.start_byte < end
    }
    local_names = {d[0] for d in declared}
    # A `private` copy starts undefined in every thread: never one shared value.
    fresh = clause_names((region.directive,), frozenset({"private"}))
    invariant = frozenset(
        {r.name for r in fn.refs if start <= r.span.start_byte < end}
        - written
        - local_names
        - fresh
    ) | {_TEAM}  # one team's threads share its number
    changing = written | local_names | fresh
    invariant = steady_paths(invariant, fn, source, (start, end), changing)
    sweep: set[str] = set()
    ranges: list[Sweep] = []
    constants = integer_macros(source.macros)  # `#define N 100`: bounds are known
    worksharing = {(v, s) for v, s, _ in loop_vars}
    for loop in source.loops():
        if not start <= loop.id < end or not loop.var:
            continue
        if (loop.var, loop.span.start_byte) in worksharing:
            continue
        bounds = set(_TOKEN.findall(_joined(loop.lower_text + " " + loop.upper_text)))
        if bounds <= invariant | {loop.var} and loop.step in (1, -1):
            sweep.add(loop.var)
            known = sweep_of(loop, invariant, constants)
            if known is not None:
                ranges.append(known)
    named_shared = clause_names((region.directive,), frozenset({"shared"}))
    own_indices = tuple(
        (lp.var, lp.span.start_byte, lp.span.end_byte)
        for lp in source.loops()
        if lp.fortran and lp.var and start <= lp.id < end and lp.var not in named_shared
    )
    text = data[start:end].decode("utf-8", "replace")
    # `for (i = omp_get_thread_num(); ...; i += n)` moves `i`: no thread number
    tids = {m.group(1) for m in _TID.finditer(text) if set_once(m.group(1), text)}
    sizes = [m.group(1) for m in _SIZE.finditer(text)]
    threadprivate = {
        n for args in _THREADPRIVATE.findall(source.text) for n in _NAME.findall(args)
    }
    arrays = {v.name for v in (*fn.locals, *fn.params, *source.globals) if v.dims}
    size_vars = frozenset(n for n in sizes if set_once(n, text))
    return Environment(
        region=region,
        threadprivate=frozenset(threadprivate),
        declared=declared,
        loop_vars=tuple(loop_vars),
        invariant=invariant,
        sweep_vars=frozenset(sweep),
        tid_vars=frozenset(tids),
        arrays=frozenset(arrays),
        clause_private=frozenset(clause_names((region.directive,), _PRIVATIZING)),
        task_shared=frozenset(task_shared),
        sweeps=tuple(ranges),
        shared_loops=tuple(
            known
            for lp in split
            if (known := sweep_of(lp, invariant, constants)) is not None
        ),
        own_indices=own_indices,
        size_vars=size_vars,
        constants=tuple(constants.items()),
        cyclic=cyclic_loops(region, source, frozenset(tids), size_vars),
        blocked=blocked_loops(region, source, frozenset(tids), size_vars),
        team_loops=team_loops(region, source, size_vars),
        everywhere=everywhere_loops(region, fn, source),
        members=member_paths(fn, source, start, end),
    )


def _joined(text: str) -> str:
    """`s . n` as `s.n`, `p -> n` as `p->n`."""
    return re.sub(r"\s*(\.|->)\s*(?=[A-Za-z_])", r"\1", text)


def _member(
    ref: Ref, pos: int, chain: list[Region], env: Environment
) -> Location | None:
    """`p.a` or `s->n`: one shared location, unless the structure is the thread's."""
    base = _NAME.match(ref.name)
    if base is None or not ref.name[base.end() :].startswith((".", "->")):
        return None  # an element's member, a call's result: not followed
    if env.is_private(base.group(0), pos, chain):
        return None  # its own structure, or a private pointer to memory unseen
    return Location(ref.name, "scalar", ())


def locate(
    ref: Ref, pos: int, chain: list[Region], env: Environment, shared: bool = False
) -> Location | None:
    """Where a shared access lands; None when it is private or not followed.

    `shared`: the pointer is private but every copy holds one value.
    """
    if ref.member and not ref.escapes and not ref.subscripts:
        return _member(ref, pos, chain, env)
    path = [(base, kind) for p, base, kind in env.members if p == ref.name]
    if ref.member and path and not ref.escapes and not shared:
        private = env.is_private(path[0][0], pos, chain)
        if not shared_through_member(
            ref.name, path[0][1], private, [env.region, *chain]
        ):
            return None
        return locate(replace(ref, member=False), pos, chain, env, True)
    if ref.member or ref.escapes:
        return None  # struct fields and escaping addresses are not modelled
    if not ref.subscripts and not ref.deref:
        return Location(ref.name, "scalar", ())
    base_private = not shared and env.is_private(ref.name, pos, chain)
    if base_private:
        return None  # a private array, or a private pointer to memory we cannot see
    if ref.deref and not ref.subscripts:
        form = "const" if ref.name in env.invariant else "varying"
        return Location(ref.name, form, ("0",), (Poly.const(0),))
    index = tuple("".join(s.text.split()) for s in ref.subscripts)
    macros = dict(env.constants)
    renamed = nested_tids(index, chain)
    names = {n for t in renamed for n in _TOKEN.findall(t)} - set(macros)
    # `a[omp_get_thread_num()]`: the call's value is the thread number.
    polys = tuple(
        Poly.sym(text[:-2])
        if text in ("omp_get_thread_num()", f"{_TEAM}()") and new == text
        else folded_poly(s.text, macros, s.poly)
        if new == text
        else folded_poly(new, macros, expression_poly(new))
        for s, text, new in zip(ref.subscripts, index, renamed, strict=True)
    )
    known = ("omp_get_thread_num()", f"{_TEAM}()")
    tid_calls = {i for i, text in enumerate(index) if text in known}
    # `a[k * 8 + omp_get_thread_num()]` in a nested team: the call is renamed away
    tid_calls |= {i for i, t in enumerate(renamed) if t != index[i] and "(" not in t}
    indirect = any(
        s.indirect for i, s in enumerate(ref.subscripts) if i not in tid_calls
    )
    # A worksharing loop's variable here is not a sequential loop's of that name.
    sweeps = env.sweep_vars - {v for v, s, e in env.loop_vars if s <= pos < e}
    if indirect or None in polys:
        form = "varying"
    elif names & env.tid_vars or "omp_get_thread_num" in names:
        rest = names - env.tid_vars - {"omp_get_thread_num", NESTED_TID}
        form = "tid" if rest <= env.invariant | sweeps else "varying"
    elif names <= env.invariant | {NESTED_TID}:
        form = "const"
    elif names <= env.invariant | sweeps:
        form = "loop"
    else:
        form = "varying"
    bounds = enclosing(env.sweeps, pos) if form in ("loop", "tid") else ()
    if form == "varying" and all(p is not None for p in polys):
        split = enclosing(env.shared_loops, pos)
        if names <= env.invariant | sweeps | {s.var for s in split}:
            form, bounds = "ws", (*enclosing(env.sweeps, pos), *split)
    nested = NESTED_TID in " ".join(renamed)
    return Location(ref.name, form, index, polys, bounds, nested)
