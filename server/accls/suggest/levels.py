"""A nest mapped onto the parallelism hierarchy: gang > worker > vector.

OpenACC names the levels on `loop` directives; OpenMP offload spells them
`teams distribute` (gang), `parallel for` (worker and vector threads) and
`simd` (vector lanes). A perfect, rectangular nest of parallel loops is folded
by `collapse` instead: one flat iteration space the compiler splits over every
level. An imperfect nest gets one pragma per level, since `collapse` cannot
fold loops with statements between them.
"""

from __future__ import annotations

from accls.analysis import FileAnalysis, LoopFacts
from accls.frontend import Clause, Loop
from accls.suggest.options import Gpu, SuggestOptions
from accls.suggest.pragma import Dialect, Pragma
from accls.suggest.suggestion import Suggestion

__all__ = [
    "acc_level",
    "deepest",
    "first_parallel",
    "levels_reason",
    "omp_inner_directive",
    "seq_pragma",
    "seq_ready",
    "seq_suggestion",
    "stride_one",
    "tuning_clauses",
]

_ORDER = ("gang", "worker", "vector")


def first_parallel(loops: list[Loop], analysis: FileAnalysis) -> list[Loop]:
    """The outermost parallel loops among `loops` and the loops below them."""
    found: list[Loop] = []
    for loop in loops:
        if analysis.of(loop).parallel:
            found.append(loop)
        else:
            found.extend(first_parallel(list(loop.children), analysis))
    return found


def deepest(levels: tuple[str, ...]) -> str | None:
    """The innermost level among `levels` (those of the enclosing constructs)."""
    found = [lv for lv in _ORDER if lv in levels]
    return found[-1] if found else None


def acc_level(taken: str | None, nested: bool, more_below: bool) -> str | None:
    """The level (gang > worker > vector) for a loop under level `taken`."""
    if not nested:
        return "gang" if more_below else None
    if taken in (None, "gang"):
        return "worker" if more_below else "vector"
    if taken == "worker":
        return "vector"
    return None


def levels_reason(loop: Loop, level: str, below: list[Loop], stop: str) -> str:
    """Why the nest gets one pragma per level rather than `collapse` (`stop`)."""
    names = ", ".join(f"`{c.var}`" for c in below if c.var) or "the inner loops"
    plural = "s" if len(below) > 1 else ""
    return (
        f"levels: `{loop.var}` takes `{level}`, the parallel loop{plural} {names} "
        f"inside it the next level: {stop}"
    )


def stride_one(loop: Loop) -> bool:
    """Every subscripted reference walks its last dimension with the loop's variable.

    A step of one in the variable, or no use of it at all: consecutive
    iterations touch consecutive elements, which is what vector lanes want.
    """
    var = loop.var
    if var is None or loop.step not in (1, -1):
        return False
    for ref in loop.refs:
        if not ref.subscripts:
            continue
        *outer, last = ref.subscripts
        if any(s.poly is None or var in s.poly.names() for s in outer):
            return False
        if last.poly is None or last.indirect:
            return False
        if var in last.poly.names() and (
            not last.poly.is_affine or abs(last.poly.coeff(var)) != 1
        ):
            return False
    return True


def seq_ready(loop: Loop, opts: SuggestOptions) -> bool:
    """Whether an OpenACC `loop seq` can go on `loop` (canonical, no exit, bare)."""
    return not (
        opts.dialect is not Dialect.OPENACC
        or loop.var is None
        or loop.step is None
        or loop.cond_op not in ("<", "<=", ">", ">=")
        or loop.exits
        or loop.pragmas
    )


def seq_suggestion(facts: LoopFacts, opts: SuggestOptions) -> Suggestion | None:
    """`loop seq` for a dependent loop inside a gang or worker loop, if it is canonical.

    In a `parallel` construct a loop with no directive below a `gang` loop is
    left to the compiler, which may split it over vector lanes when it believes
    the iterations are independent: `seq` says they are not.
    """
    loop = facts.loop
    if not seq_ready(loop, opts):
        return None
    why = facts.obstacles[0].message if facts.obstacles else "it is not independent"
    return seq_pragma(
        facts,
        opts,
        f"loop seq: {why}; it runs sequentially in each gang, and `seq` keeps "
        "the compiler from splitting it over vector lanes",
    )


def seq_pragma(facts: LoopFacts, opts: SuggestOptions, reason: str) -> Suggestion:
    """The inner `loop seq` suggestion for `facts.loop`, with its reason."""
    return Suggestion(
        loop=facts.loop,
        facts=facts,
        options=opts,
        pragma=Pragma(opts.dialect, "loop", (Clause("seq"),)),
        reasons=(reason,),
        inner=True,
    )


def omp_inner_directive(facts: LoopFacts) -> str:
    """`parallel for`, with `simd` on an innermost, stride-one, call-free loop."""
    loop = facts.loop
    lanes = not loop.children and not loop.calls and not facts.atomics
    return "parallel for simd" if lanes and stride_one(loop) else "parallel for"


_WIDTH = {Gpu.NVIDIA: (32, "NVIDIA", "warp"), Gpu.AMD: (64, "AMD", "wavefront")}
_WORKERS = 4
"""Workers per gang: four warps or wavefronts share a gang's (block's) resources."""


def tuning_clauses(
    opts: SuggestOptions, directive: str, worker_below: bool
) -> tuple[list[Clause], list[str]]:
    """`vector_length`/`num_workers` or `thread_limit` for the GPU of `opts.gpu`."""
    if opts.gpu not in _WIDTH:
        return [], []
    width, vendor, unit = _WIDTH[opts.gpu]
    if opts.dialect is Dialect.OPENACC:
        if worker_below:
            why = (
                f"num_workers({_WORKERS}) vector_length({width}): {vendor} "
                f"(accls.gpu), one {unit} of {width} per worker, {_WORKERS} workers "
                "per gang"
            )
            clauses = [Clause("num_workers", str(_WORKERS))]
            return [*clauses, Clause("vector_length", str(width))], [why]
        length = width * _WORKERS
        why = (
            f"vector_length({length}): {vendor} (accls.gpu), {_WORKERS} {unit}s of "
            f"{width} per gang"
        )
        return [Clause("vector_length", str(length))], [why]
    if not directive.startswith("target teams"):
        return [], []
    threads = width * _WORKERS
    why = (
        f"thread_limit({threads}): {vendor} (accls.gpu), {_WORKERS} {unit}s of "
        f"{width} per team; num_teams is left to the runtime, which sizes it from "
        "the trip count"
    )
    return [Clause("thread_limit", str(threads))], [why]
