"""Which pointer parameters `restrict` would free a loop from aliasing, if any."""

from __future__ import annotations

import re

from accls.analysis.aliasing import alias_obstacles, array_decl
from accls.analysis.model import LoopFacts, ObstacleCode
from accls.analysis.program import ProgramSummaries
from accls.frontend import Function, SourceFile, Var

__all__ = ["overlapping_calls", "restrict_parameters"]

_NAME = re.compile(r"[A-Za-z_]\w*")


def _editable(var: Var | None, fn: Function) -> bool:
    """A one-level pointer parameter of `fn` (`double *a`), not yet `restrict`."""
    return (
        var is not None
        and var.scope == "param"
        and any(p is var for p in fn.params)
        and var.pointers == 1
        and not var.dims
        and var.shape == "*"
        and not var.restrict
        and not var.unknown_shape
    )


def restrict_parameters(facts: LoopFacts, source: SourceFile) -> tuple[str, ...] | None:
    """The parameters to declare `restrict`, in order, when aliasing alone blocks.

    None when the loop has another obstacle, when an overlapping pair has no
    pointer parameter of the loop's own function to qualify, or when a pointer
    table's rows may overlap (`restrict` on the table would not say they don't).
    """
    if source.language == "fortran":
        return None  # Fortran has no `restrict` to write
    if not facts.obstacles or any(
        o.code is not ObstacleCode.ALIAS for o in facts.obstacles
    ):
        return None
    fn = source.function(facts.loop.function)
    if fn is None:
        return None
    check = alias_obstacles(facts.loop, fn, source)
    if check.rows or not check.pairs:
        return None
    chosen: set[str] = set()
    for pair in check.pairs:
        decls = [array_decl(name, fn, source.globals) for name in pair]
        if any(name != name.split("->")[0].split(".")[0] for name in pair):
            return None  # a member of a structure: not a parameter's own pointer
        names = [d.name for d in decls if d is not None and _editable(d, fn)]
        if not names:
            return None
        chosen.update(names)
    return tuple(p.name for p in fn.params if p.name in chosen)


def _root(arg: str) -> str | None:
    """The object an argument's text starts from: `ys`, `&x[0]`, `g + 1` -> `g`."""
    found = _NAME.match(arg.lstrip("&*( "))
    return found.group(0) if found else None


def overlapping_calls(
    source: SourceFile,
    function: str,
    params: tuple[str, ...],
    program: ProgramSummaries | None = None,
) -> tuple[str, ...]:
    """Calls of `function` that visibly pass one object for two of `params`.

    Such a caller would break the `restrict` promise (`saxpy(n, a, ys, ys)`),
    in the file or in another file of the `program`.
    """
    fn = source.function(function)
    if fn is None:
        return ()
    where = [i for i, p in enumerate(fn.params) if p.name in params]
    out: list[str] = []
    for caller in source.functions:
        for call in caller.call_sites:
            if call.name != function or len(call.args) != len(fn.params):
                continue
            roots = [_root(call.args[i]) for i in where]
            named = [r for r in roots if r is not None]
            if len(set(named)) < len(named):
                out.append(
                    f"`{function}({', '.join(call.args)})` at line {call.span.line}"
                )
    if program is not None and not fn.static:
        out.extend(
            f"`{function}()` called as {o.shown}"
            for o in program.overlaps
            if o.callee == function
            and o.first in where
            and o.second in where
            and not o.via
        )
    return tuple(out)
