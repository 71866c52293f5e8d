"""Hand-made counting barriers: each thread bumps a counter once, then spins on it.

    #pragma omp atomic update seq_cst
    arrived += 1;
    do {
    #pragma omp atomic read seq_cst
      seen = arrived;
    } while (seen < nt);

with `nt = omp_get_num_threads()`. The spin ends on a thread only once every
thread has bumped the counter, so what a thread does before its bump comes before
what any thread does after its spin: the bump is a phase bound. What a thread does
between its bump and the end of its spin is ordered with nothing; the bound puts
it with the code after the spin, which it does race with (and apart from the code
before the bumps, which it may race with too: a pair missed, never a pair made).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.mhp_constructs import first_word, pragma_at
from accls.frontend import Region, SourceFile

__all__ = ["CountingBarrier", "counting_barriers"]

_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True, slots=True)
class CountingBarrier:
    """One counting barrier: the bump's pragma (the bound), and what it explains."""

    counter: str
    bound: int
    line: int
    parts: frozenset[int]  # pragma starts of the atomics it explains


def _text(source: SourceFile, c: Region) -> str:
    data = source.data[c.span.start_byte : c.span.end_byte]
    return " ".join(data.decode("utf-8", "replace").split())


def counting_barriers(
    region: Region,
    inner: list[Region],
    source: SourceFile,
    sizes: frozenset[str],
) -> list[CountingBarrier]:
    """The counting barriers of the region, each bump run once by every thread.

    The bump is an `atomic` update `c += 1` (or `c++`), the only write of `c` in
    the region, outside every loop, branch and other construct of the region;
    the spin is the first loop after it in its block, whose body holds one
    `atomic read` of `c` into `v` and whose condition is `v < n`, `n` the team
    size.
    """
    atomics = [c for c in inner if first_word(c) == "atomic"]
    text = source.data[region.span.start_byte : region.span.end_byte].decode(
        "utf-8", "replace"
    )
    out: list[CountingBarrier] = []
    for bump in atomics:
        found = re.fullmatch(
            r"(?:([A-Za-z_]\w*) \+= 1|([A-Za-z_]\w*) ?\+\+|\+\+ ?([A-Za-z_]\w*)) ?;",
            _text(source, bump),
        )
        words = set(bump.directive.name.split()) | {
            c.name for c in bump.directive.clauses
        }
        if found is None or words & {"read", "write", "capture"}:
            continue
        counter = next(g for g in found.groups() if g)
        at = pragma_at(bump)
        if any(
            b.span.start_byte <= at < b.span.end_byte
            and b.span.start_byte > region.span.start_byte
            for b in source.branches
        ) or any(c is not bump and pragma_at(c) < at < c.span.end_byte for c in inner):
            continue  # not run exactly once by every thread
        writes = re.findall(
            rf"\b{counter}\s*(?:[-+*/]?=(?!=)|\+\+|--)|(?:\+\+|--)\s*{counter}\b", text
        )
        if len(writes) != 1 or f"&{counter}" in text.replace(" ", ""):
            continue
        spin = _spin(bump, counter, atomics, source, sizes)
        if spin is not None:
            out.append(
                CountingBarrier(counter, at, bump.span.line, frozenset({at, spin}))
            )
    return out


def _spin(
    bump: Region,
    counter: str,
    atomics: list[Region],
    source: SourceFile,
    sizes: frozenset[str],
) -> int | None:
    """The pragma of the spin's `atomic read`, when the loop after the bump is one."""
    after = bump.span.end_byte
    loops = sorted(
        (
            b
            for b in source.branches
            if b.kind == "loop"
            and b.span.start_byte >= after
            and not any(
                (o.span.start_byte <= after < o.span.end_byte)
                != (o.span.start_byte <= b.span.start_byte < o.span.end_byte)
                for o in source.branches
                if o is not b
            )
        ),
        key=lambda b: b.span.start_byte,
    )
    for loop in loops[:1]:  # the first loop after the bump, in its block
        reads = [
            c
            for c in atomics
            if loop.span.start_byte <= pragma_at(c) < loop.span.end_byte
            and "read"
            in set(c.directive.name.split()) | {k.name for k in c.directive.clauses}
        ]
        if len(reads) != 1:
            continue
        found = re.fullmatch(rf"([A-Za-z_]\w*) = {counter} ?;", _text(source, reads[0]))
        cond = " ".join(loop.condition.split()).strip("() ")
        if found is None:
            continue
        test = re.fullmatch(rf"{found.group(1)} < ([A-Za-z_]\w*)", cond)
        if test is not None and test.group(1) in sizes:
            return pragma_at(reads[0])
    return None
