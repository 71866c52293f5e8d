"""The obstacle a carried dependence makes: which references, which iterations."""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.model import Dependence, Obstacle, ObstacleCode
from accls.analysis.scatter_reasons import scatter_reason
from accls.analysis.segment_notes import segment_note
from accls.frontend import Loop, Ref, Span

__all__ = ["dependence_obstacle", "substitutions"]


def _ref_text(ref: Ref | None, name: str) -> str:
    return name if ref is None else ref.render()


def dependence_obstacle(
    dep: Dependence,
    refs: dict[Span, Ref],
    loop: Loop | None = None,
    macros: Mapping[str, int] | None = None,
) -> Obstacle:
    """Why `dep` forbids running the loop that carries it in parallel.

    With the loop and the file's integer macros, a dependence of a segment loop
    also says which count would need a bound (`segment_notes`).
    """
    pair = (refs.get(dep.source), refs.get(dep.sink))
    notes = substitutions(tuple(r for r in pair if r is not None))
    segment = segment_note(dep, refs, loop, macros or {})
    notes += (segment,) if segment else ()
    src = _ref_text(refs.get(dep.source), dep.array)
    snk = _ref_text(refs.get(dep.sink), dep.array)
    if not dep.exact:
        reason = scatter_reason(dep, refs) or (
            dep.reason or "its subscripts cannot be analysed exactly"
        )
        return Obstacle(
            code=ObstacleCode.DEPENDENCE,
            line=dep.source.line,
            variable=dep.array,
            message=f"`{dep.array}` may be shared between iterations: {reason} "
            f"(line {dep.source.line})" + "".join(f"; {note}" for note in notes),
        )
    distance = next(
        (
            d
            for d, lid in zip(dep.distance, dep.loops, strict=False)
            if lid == dep.carrier
        ),
        None,
    )
    how = f", distance {distance}" if distance is not None else ""
    how += "".join(f"; {note}" for note in notes)
    verb = {"flow": "read", "anti": "written", "output": "written"}[dep.kind.value]
    return Obstacle(
        code=ObstacleCode.DEPENDENCE,
        line=dep.source.line,
        variable=dep.array,
        message=f"{dep.kind.value} dependence on `{dep.array}`: `{src}` (line "
        f"{dep.source.line}) is {verb} as `{snk}` (line {dep.sink.line}) in a later "
        f"iteration{how}",
    )


def substitutions(refs: tuple[Ref, ...]) -> tuple[str, ...]:
    """The forward-substituted values of the references' subscripts, once each."""
    return tuple(
        dict.fromkeys(
            note for ref in refs for sub in ref.subscripts for note in sub.values
        )
    )
