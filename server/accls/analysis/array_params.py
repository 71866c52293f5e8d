"""Array-syntax parameters (`double x[N]`): distinct unless a call shows otherwise.

The calls looked at are the file's own and, through the workspace index, those
of the program's other files (`argument_overlaps` of each file, in
`ProgramSummaries.overlaps`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from accls.analysis.model import Obstacle, ObstacleCode
from accls.analysis.program import ArgumentOverlap, ProgramSummaries
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import Function, Loop, SourceFile, Var

__all__ = ["argument_overlaps", "array_param_facts", "passed_twice"]

_IDENT = re.compile(r"[A-Za-z_]\w*")
_GLOBALS = "<globals>"
_ANY = "<any global, or a call's result>"
_ROW = re.compile(r"\s*([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]\s*")
_MOST_ARGS = 16  # arguments past this many are not compared
_CHAIN = 32  # (function, pair) nodes a search of callers' callers visits, at most


def _lookup(name: str, fn: Function, source: SourceFile) -> Var | None:
    found = fn.lookup(name)
    if found is None:
        found = next((g for g in source.globals if g.name == name), None)
    return found


def _objects(arg: str, caller: Function, source: SourceFile) -> set[str]:
    """The arrays and pointers an argument's text names, and what they were set from.

    `(double (*)[m])(buf + m)` names `buf`; a local `q = p + 1` names `q` and `p`.
    A local pointer not freshly allocated adds `_ANY`: its value may be a
    global's address (`p = a + 1` keeps no source) or a call's result.
    """
    found: set[str] = set()
    todo = [m.group(0) for m in _IDENT.finditer(arg)]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        var = _lookup(name, caller, source)
        if var is None or not (var.pointers or var.dims):
            continue
        found.add(name)
        if var.scope == "global":
            found.add(_GLOBALS)
        if var.scope == "local" and var.pointers and not var.fresh:
            found.add(_ANY)
            todo.extend(s for s in var.sources if _IDENT.fullmatch(s))
    return found


def _may_share(one: set[str], two: set[str]) -> bool:
    """Whether two arguments' objects may be one (see `_objects`)."""
    if _ANY in one and (_GLOBALS in two or _ANY in two):
        return True
    if _ANY in two and _GLOBALS in one:
        return True
    return bool((one & two) - {_GLOBALS, _ANY})


def _rows_apart(one: str, two: str, caller: Function, source: SourceFile) -> bool:
    """`u[0]` and `u[1]` of a 2-D array `u`: two different rows."""
    left, right = _ROW.fullmatch(one), _ROW.fullmatch(two)
    if left is None or right is None or left.group(1) != right.group(1):
        return False
    var = _lookup(left.group(1), caller, source)
    return (
        var is not None
        and len(var.dims) >= 2
        and not var.pointers
        and left.group(2) != right.group(2)
    )


def _shared(one: str, two: str, caller: Function, source: SourceFile) -> bool:
    """Whether two argument texts of a call in `caller` may name one object."""
    if _rows_apart(one, two, caller, source):
        return False
    return _may_share(_objects(one, caller, source), _objects(two, caller, source))


def _surely_shared(one: str, two: str, caller: Function, source: SourceFile) -> bool:
    """Whether two argument texts name one array or pointer (`a + 1` and `a`)."""
    if _rows_apart(one, two, caller, source):
        return False
    common = _objects(one, caller, source) & _objects(two, caller, source)
    return bool(common - {_GLOBALS, _ANY})


def _param_slots(arg: str, caller: Function, source: SourceFile) -> set[int]:
    """The positions of the caller's pointer parameters an argument may point into."""
    objects = _objects(arg, caller, source)
    return {k for k, p in enumerate(caller.params) if p.name in objects}


def _forwarded(
    one: str, two: str, caller: Function, source: SourceFile
) -> list[tuple[int, int]]:
    """The pairs of the caller's own parameters two arguments are set from."""
    firsts, seconds = (
        _param_slots(one, caller, source),
        _param_slots(two, caller, source),
    )
    pairs = {(min(k, m), max(k, m)) for k in firsts for m in seconds if k != m}
    return sorted(pairs)


def _same_text(one: str, two: str) -> bool:
    """`f(x, x)`: one argument text passed twice."""
    return one.replace(" ", "") == two.replace(" ", "")


def _passed_on(one: str, two: str, via: tuple[int, ...], caller: Function) -> bool:
    """Whether two arguments are the caller's parameters at `via`, as they are.

    `f(p, q)` in `wrap(p, q)`: a call `wrap(x, x)` passes one text to `f` too;
    `f(p + 1, q)` does not.
    """
    names = {caller.params[k].name for k in via if k < len(caller.params)}
    return len(names) == 2 and {one.strip(), two.strip()} == names


def _overlap_reason(
    name: str,
    pair: tuple[int, int],
    source: SourceFile,
    program: ProgramSummaries | None,
    seen: set[tuple[str, tuple[int, int]]],
    surely: bool = False,
    *,
    same_ok: bool = False,
) -> str:
    """A call of `name` passing one object at both positions, directly or on.

    A call that passes two of its caller's parameters (`wrap(p, q)` calls
    `f(p, q)`) counts where a call of the caller passes one object to those,
    callers of callers followed a few levels, in the file and in the others.
    `surely`: only arguments that surely name one object count (a promise,
    `restrict`, is broken by such a call, not by two pointers of unknown origin).
    `same_ok`: one argument text passed twice (`f(x, x)`) does not count.
    """
    shared = _surely_shared if surely else _shared
    if (name, pair) in seen or len(seen) > _CHAIN:
        return ""
    seen.add((name, pair))
    for caller in source.functions:
        for call in caller.call_sites:
            if call.name != name or max(pair) >= len(call.args):
                continue
            one, two = call.args[pair[0]], call.args[pair[1]]
            if same_ok and _same_text(one, two):
                continue
            if shared(one, two, caller, source):
                return f"line {call.span.line} passes `{one}` and `{two}` to `{name}`"
            for via in _forwarded(one, two, caller, source):
                found = _overlap_reason(
                    caller.name,
                    via,
                    source,
                    program,
                    seen,
                    surely,
                    same_ok=same_ok and _passed_on(one, two, via, caller),
                )
                if found:
                    return f"{found}, which passes them on to `{name}`"
    own = source.function(name)
    if program is None or (own is not None and own.static):
        return ""  # only this file can call a static function
    for record in program.overlaps:
        if record.callee != name or (record.first, record.second) != pair:
            continue
        if not record.via:
            if (surely and not record.certain) or (same_ok and record.same):
                continue
            return f"{record.shown} to `{name}`"
        via = (record.via[0], record.via[1])
        found = _overlap_reason(
            record.caller,
            via,
            source,
            program,
            seen,
            surely,
            same_ok=same_ok and record.same,
        )
        if found:
            return f"{found}, which passes them on to `{name}`"
    return ""


def passed_twice(
    fn: Function,
    one: str,
    two: str,
    source: SourceFile,
    program: ProgramSummaries | None,
    same_ok: bool = False,
) -> str:
    """A visible call of `fn` that surely passes one object to parameters `one`, `two`.

    "line 7 passes `base + 10` and `base` to `s2`", or "" when no call does
    (pointers of unknown origin do not count: only one object named twice).
    `same_ok`: a call passing one argument text twice (`dot(x, x)`) is left
    out, for a caller that maps the same elements through both.
    """
    positions = {p.name: k for k, p in enumerate(fn.params)}
    if one not in positions or two not in positions or one == two:
        return ""
    at = sorted((positions[one], positions[two]))
    return _overlap_reason(
        fn.name, (at[0], at[1]), source, program, set(), True, same_ok=same_ok
    )


def argument_overlaps(
    source: SourceFile, label: str, callers: Iterable[Function] | None = None
) -> tuple[ArgumentOverlap, ...]:
    """The file's calls that pass one object to two arguments, or two parameters.

    `label` names the file in the text shown; `callers`, the functions to read
    (all of the file's by default). A call passing two of its caller's pointer
    parameters is recorded with `via`, for the callers of the caller to decide.
    """
    out: list[ArgumentOverlap] = []
    for caller in source.functions if callers is None else callers:
        for call in caller.call_sites:
            if len(call.args) < 2:
                continue
            args = call.args[:_MOST_ARGS]
            for first, one in enumerate(args):
                for second in range(first + 1, len(args)):
                    two = args[second]
                    shown = f"`{caller.name}()` ({label}) passes `{one}` and `{two}`"
                    certain = _surely_shared(one, two, caller, source)
                    if certain or _shared(one, two, caller, source):
                        vias: list[tuple[int, ...]] = [()]
                    else:
                        vias = list(_forwarded(one, two, caller, source))
                    out.extend(
                        ArgumentOverlap(
                            callee=call.name,
                            first=first,
                            second=second,
                            caller=caller.name,
                            shown=shown,
                            via=via,
                            certain=certain and not via,
                            same=(
                                _passed_on(one, two, via, caller)
                                if via
                                else _same_text(one, two)
                            ),
                        )
                        for via in vias
                    )
    return tuple(dict.fromkeys(out))


def _calls_in_sight(
    fn: Function, source: SourceFile, program: ProgramSummaries | None
) -> bool:
    """Whether any call of `fn` is visible: in the file or in the program's others."""
    if any(call.name == fn.name for c in source.functions for call in c.call_sites):
        return True
    return program is not None and not fn.static and fn.name in program.called


def _promised(param: Var, assume_no_alias: bool) -> bool:
    """Whether the analysis takes `param` apart from the others on a promise alone.

    `restrict` (the user's, or a Fortran dummy's) and assume-no-alias are
    promises that a call of the program itself can break.
    """
    return param.restrict or (assume_no_alias and param.pointers > 0)


def _broken_promise(
    loop: Loop,
    fn: Function,
    source: SourceFile,
    program: ProgramSummaries | None,
    pairs: list[tuple[Var, Var, bool]],
) -> Obstacle | None:
    """A visible call passing one object to a pair the loop writes and reads."""
    written = {r.name for r in loop.refs if not is_scalar_ref(r) and r.is_write}
    positions = {p.name: k for k, p in enumerate(fn.params)}
    for one, two, surely in pairs:
        if one.name not in written and two.name not in written:
            continue
        at = sorted((positions[one.name], positions[two.name]))
        why = _overlap_reason(fn.name, (at[0], at[1]), source, program, set(), surely)
        if not why:
            continue
        line = next(r.span.line for r in loop.refs if r.name in (one.name, two.name))
        kind = "array parameters" if one.dims and two.dims else "parameters"
        return Obstacle(
            code=ObstacleCode.ALIAS,
            line=line,
            variable=one.name if one.name in written else two.name,
            message=f"the {kind} `{one.name}` and `{two.name}` may be one array: {why}",
        )
    return None


def array_param_facts(
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
    program: ProgramSummaries | None = None,
    assume_no_alias: bool = False,
) -> tuple[tuple[str, ...], tuple[Obstacle, ...]]:
    """The assumption that the loop's array parameters are distinct, or why not.

    C makes `double x[N]` a pointer: nothing keeps two of them apart but the
    callers. A call that passes one array to two of them (`f(a + 1, a)`), in
    the file or in another file of the `program`, is an obstacle, whatever the
    user assumes; otherwise the suggestion states the assumption, and says
    when no call is in sight at all. The same call breaks a `restrict`
    parameter's promise (and assume-no-alias'), so it is an obstacle there too:
    the serial program may work, the parallel loop races.
    """
    if fn is None:
        return (), ()
    names = {r.name for r in loop.refs if not is_scalar_ref(r)}
    arrays = [p for p in fn.params if p.dims and not p.pointers and not p.restrict]
    kept = [p for p in fn.params if p.name in names and (p.pointers or p.dims)]
    # A pair of plain pointers is the aliasing check's: it refuses them unless
    # assume-no-alias, counted among the promises, lifts it.
    # A promise is broken only by a call that surely passes one object twice;
    # two array-syntax parameters, promised nothing, by any that may.
    pairs = [
        (one, two, promised)
        for k, one in enumerate(kept)
        for two in kept[k + 1 :]
        if (
            promised := _promised(one, assume_no_alias)
            or _promised(two, assume_no_alias)
        )
        or (any(one is a for a in arrays) and any(two is a for a in arrays))
    ]
    blocked = _broken_promise(loop, fn, source, program, pairs)
    if blocked is not None:
        return (), (blocked,)
    params = sorted(p.name for p in arrays if p.name in names)
    if len(params) < 2:
        return (), ()
    assumption = (
        "assumes the array parameters "
        + ", ".join(f"`{p}`" for p in params)
        + " are distinct arrays"
    )
    if _calls_in_sight(fn, source, program):
        assumption += f": no call of `{fn.name}()` in sight passes one array twice"
    else:
        assumption += f": no call of `{fn.name}()` is in sight to tell"
    return (assumption,), ()
