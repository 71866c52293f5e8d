"""`nowait` loops whose results the next loop of the same region uses too early."""

from __future__ import annotations

from accls.analysis.analyze import FileAnalysis
from accls.analysis.findings import NOWAIT_RACE, Finding, finding
from accls.analysis.nowait_copies import early_copy_use
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import Directive, Loop, Region, SourceFile

__all__ = ["nowait_findings", "worksharing"]


def worksharing(loop: Loop) -> Directive | None:
    """The `omp for` (not `parallel for`) directive on a loop, if any."""
    for d in loop.pragmas:
        words = set(d.name.split())
        if d.dialect == "omp" and "for" in words and "parallel" not in words:
            return d
    return None


def _parallel_region(loop: Loop) -> Region | None:
    found: Region | None = None
    for region in loop.regions:
        d = region.directive
        if d.dialect == "omp" and "parallel" in d.name.split():
            found = region
    return found


def _same_schedule(a: Directive, b: Directive, first: Loop, second: Loop) -> bool:
    """Static schedules over the same space: each thread gets the same iterations."""
    sa, sb = a.clause("schedule"), b.clause("schedule")
    if sa is None or sb is None or sa.args != sb.args:
        return False
    return (sa.args or "").startswith("static") and (
        (first.lower_text, first.upper_text, first.step)
        == (second.lower_text, second.upper_text, second.step)
    )


def _between_pragmas(source: SourceFile, start: int, end: int) -> bool:
    """True if any pragma (a barrier, a construct) sits between two offsets."""
    return b"#" in source.data[start:end] and b"pragma" in source.data[start:end]


def _next_turn(
    sharing: list[tuple[Loop, Directive]],
    plain: list[Loop],
    loop: Loop,
    region: Region,
    source: SourceFile,
) -> tuple[Loop, Directive] | None:
    """The worksharing loop the next turn of a sequential loop around `loop` meets.

    `for (step ...) { #pragma omp for ... #pragma omp for nowait ... }`: past
    the last worksharing loop of the body, a thread goes on to the body's first
    one in the next turn, with no barrier unless a pragma sits on the way.
    """
    around = [
        other
        for other in plain
        if other.body.start_byte <= loop.span.start_byte
        and loop.span.end_byte <= other.body.end_byte
        and region.span.start_byte <= other.id < region.span.end_byte
    ]
    if not around:
        return None
    turn = max(around, key=lambda other: other.body.start_byte)
    inside = [
        (other, d)
        for other, d in sharing
        if turn.body.start_byte <= other.id < turn.body.end_byte
        and _parallel_region(other) == region
    ]
    if any(other.id >= loop.span.end_byte for other, _ in inside):
        return None  # a later loop of the same turn comes first
    first, directive = inside[0]
    start = directive.span.start_byte if directive.span else first.id
    if first is loop or _between_pragmas(
        source, loop.span.end_byte, turn.body.end_byte
    ):
        return None
    if _between_pragmas(source, turn.body.start_byte, start):
        return None
    return first, directive


def nowait_findings(analysis: FileAnalysis) -> list[Finding]:
    """Arrays a `nowait` loop writes that the next loop in its region reads."""
    source = analysis.source
    loops = [(loop, worksharing(loop)) for loop in source.loops()]
    sharing = [(loop, d) for loop, d in loops if d is not None]
    plain = [loop for loop, d in loops if d is None]
    out: list[Finding] = []
    for index, (loop, directive) in enumerate(sharing):
        region = _parallel_region(loop)
        if directive.clause("nowait") is None or region is None:
            continue
        later = [
            (other, d)
            for other, d in sharing[index + 1 :]
            if other.id >= loop.span.end_byte and _parallel_region(other) == region
        ]
        turn = _next_turn(sharing, plain, loop, region, source)
        nexts = [later[0]] if later else []
        if turn is not None and turn not in nexts:
            nexts.append(turn)
        for after, after_directive in nexts:
            start = (
                after_directive.span.start_byte if after_directive.span else after.id
            )
            if after.id >= loop.span.end_byte and _between_pragmas(
                source, loop.span.end_byte, start
            ):
                continue
            made = _early_use(loop, directive, after, after_directive)
            if made is not None:
                out.append(made)
                break
    return out


def _early_use(
    loop: Loop, directive: Directive, after: Loop, after_directive: Directive
) -> Finding | None:
    """ACC111 when `after` reads an array the `nowait` loop writes, or its copy-out."""
    copy = early_copy_use(loop, directive, after, after_directive)
    if copy is not None:
        return finding(
            NOWAIT_RACE,
            copy[1].span,
            var=copy[1].name,
            write=copy[0].span.line,
            line=loop.line,
            use=copy[1].span.line,
        )
    if _same_schedule(directive, after_directive, loop, after):
        return None
    written = {r.name for r in loop.refs if r.is_write and not is_scalar_ref(r)}
    use = next(
        (r for r in after.refs if r.name in written and not is_scalar_ref(r)),
        None,
    )
    if use is None:
        return None
    write = next(r for r in loop.refs if r.is_write and r.name == use.name)
    return finding(
        NOWAIT_RACE,
        use.span,
        var=use.name,
        write=write.span.line,
        line=loop.line,
        use=use.span.line,
    )
