"""What a loop's facts share across dialects: computed once, read by each.

Only the scalars (privatization, reductions) and the constructs that protect an
access depend on the dialect; obstacles of shape, calls, aliasing and extents do
not, and listing offers both dialects of every loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis.address_reads import shared_elements
from accls.analysis.aliasing import AliasCheck, alias_obstacles
from accls.analysis.call_reasons import ambiguous_function
from accls.analysis.extents import escapes_in
from accls.analysis.fenv_state import fenv_obstacle
from accls.analysis.field_sets import FieldSets
from accls.analysis.inductions import header_advances
from accls.analysis.iteration_arrays import iteration_arrays
from accls.analysis.lone_program import overlap_calls
from accls.analysis.model import Escape, Obstacle
from accls.analysis.obstacles import call_obstacles, shape_obstacles, user_calls
from accls.analysis.program import ProgramSummaries
from accls.analysis.scoped_names import loop_function
from accls.analysis.thread_locals import thread_local_obstacle
from accls.analysis.volatiles import volatile_obstacles
from accls.frontend import Loop, SourceFile

__all__ = ["LoopCommon", "loop_common"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopCommon:
    """The dialect-free facts of one loop."""

    owned: frozenset[str]  # arrays each iteration owns a part of
    first: tuple[Obstacle, ...]  # shape, volatile, ambiguous calls, calls, fenv, TLS
    shared: tuple[Obstacle, ...]  # elements shared through addresses
    call_effects: tuple[str, ...]
    escapes: tuple[Escape, ...]
    aliasing: AliasCheck
    pure_calls: tuple[str, ...]
    advances: tuple[Obstacle, ...]  # header advances the loop cannot prove


def _unseen(source: SourceFile) -> str:
    """Why declarations from headers may be missing, as a parenthesised remark."""
    if source.missing_headers:
        names = ", ".join(f"`{h}`" for h in source.missing_headers[:3])
        return f" ({names} not found: pass its folder with -I)"
    if source.preprocessor_problem:
        return f" (headers not read: {source.preprocessor_problem})"
    return ""


def loop_common(
    loop: Loop,
    source: SourceFile,
    program: ProgramSummaries | None,
    escapes: tuple[Escape, ...] = (),
    fields: FieldSets | None = None,
) -> LoopCommon:
    """The facts of `loop` that no dialect changes."""
    fn = source.function(loop.function)
    owned = iteration_arrays(loop, fn, source)
    calls, call_effects = call_obstacles(loop, source, program)
    fenv = fenv_obstacle(loop, source, program)
    tls = thread_local_obstacle(loop, source)
    return LoopCommon(
        owned=owned,
        first=(
            *shape_obstacles(loop, fn, source, owned),
            *volatile_obstacles(loop, fn, source),
            *ambiguous_function(loop, source),
            *calls,
            *((fenv,) if fenv is not None else ()),
            *((tls,) if tls is not None else ()),
        ),
        shared=shared_elements(loop),
        call_effects=call_effects,
        escapes=escapes_in(escapes, loop),
        aliasing=alias_obstacles(
            loop,
            loop_function(fn, loop),
            source,
            _unseen(source),
            fields,
            program.global_links if program is not None else (),
            overlap_calls(source, program),
        ),
        pure_calls=user_calls(loop, source),
        advances=header_advances(loop),
    )
