"""Which directive a loop gets where it stands, its atomics, the file's habit."""

from __future__ import annotations

from dataclasses import replace

from accls.analysis import FileAnalysis, LoopFacts
from accls.frontend import Directive, Loop, RedOp
from accls.suggest.context import Placement
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Pragma, Target
from accls.suggest.suggestion import Atomic

__all__ = ["atomic_pragmas", "below_collapse", "directive_for", "house_style"]


def atomic_pragmas(
    facts: LoopFacts, dialect: Dialect, text: bytes
) -> tuple[Atomic, ...] | None:
    """Atomic pragmas for histogram-style updates; None if one cannot be placed."""
    out: list[Atomic] = []
    pragma = Pragma(dialect, "atomic update")
    for ref in facts.atomics:
        line_start = text.rfind(b"\n", 0, ref.span.start_byte) + 1
        if text[line_start : ref.span.start_byte].strip():
            return None  # the statement does not start its line
        if ref.reduction not in (
            RedOp.ADD,
            RedOp.MUL,
            RedOp.BAND,
            RedOp.BOR,
            RedOp.BXOR,
        ):
            return None
        out.append(Atomic(ref.span, pragma))
    return tuple(out)


def directive_for(opts: SuggestOptions, where: Placement) -> str | None:
    """The directive for a loop at `where`; None inside a worksharing construct."""
    if opts.dialect is Dialect.OPENACC:
        if where.compute is not None:
            return "loop"  # in a `serial` region too, where it runs on one thread
        return "kernels loop" if opts.kernels else "parallel loop"
    if where.inside_loop is not None:
        return None
    if where.compute is not None:
        words = set(where.compute.name.split())
        if "teams" in words:
            return "distribute parallel for"
        if "target" in words:
            return "parallel for"
        return "for"
    if opts.target is Target.GPU:
        return "target teams distribute parallel for"
    return "parallel for"


def below_collapse(loop: Loop, pragmas: list[Directive]) -> list[Loop]:
    """The loops under an existing pragma that its `collapse(n)` does not cover."""
    depth = 1
    for pragma in pragmas:
        clause = pragma.clause("collapse")
        if clause is not None and clause.args:
            digits = "".join(ch for ch in clause.args if ch.isdigit())
            depth = max(depth, int(digits) if digits else 1)
    level = [loop]
    for _ in range(depth - 1):
        level = [child for outer in level for child in outer.children]
    return [child for outer in level for child in outer.children]


def house_style(analysis: FileAnalysis, opts: SuggestOptions) -> SuggestOptions:
    """Follow the file's own habit: `kernels` if its compute constructs use it."""
    if opts.dialect is not Dialect.OPENACC or opts.kernels:
        return opts
    seen: dict[int, str] = {}
    for loop in analysis.source.loops():
        for directive in (*loop.pragmas, *(r.directive for r in loop.regions)):
            if directive.dialect == "acc" and directive.span is not None:
                seen[directive.span.start_byte] = directive.name
    words = [name.split()[0] for name in seen.values() if name]
    kernels = words.count("kernels")
    return replace(opts, kernels=True) if kernels > words.count("parallel") else opts
