"""Scalars touched by one iteration only: `if (i == 0) flag = f();` in a loop over `i`.

A scalar written under a condition and used after the loop usually has a last
value that depends on which iteration wrote it last. When every reference to it
in the loop sits under `if (i == c)`, with `i` the loop's variable and `c` a
value the loop never changes, only the iteration `i == c` touches it: no two
iterations race on it, and after the loop it holds what that iteration stored,
as in the serial run. It stays shared (an offloaded loop maps it `tofrom`).

The same flag stored by several iterations (`if (x[i] < 0) bad = 1;`) is not
accepted: even identical stores from two threads are a data race in the OpenMP
and C memory models, and the reason says so.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.flag_reductions import flag_reduction
from accls.analysis.model import Obstacle, ObstacleCode, ScalarClass, ScalarFact
from accls.frontend import Loop, Ref, SourceFile

__all__ = ["pinned_scalars"]

_IF = re.compile(rb"\bif\s*\(")
_EQUAL = re.compile(r"^\s*([A-Za-z_]\w*)\s*==\s*([A-Za-z_]\w*|\d+[uUlL]*)\s*$")
_WORD = re.compile(r"[A-Za-z_]\w*")
_LOOKBACK = 512


def _condition(data: bytes, branch: int) -> str | None:
    """The condition of the `if` whose consequence starts at byte `branch`."""
    start = max(0, branch - _LOOKBACK)
    before = data[start:branch]
    for found in reversed(list(_IF.finditer(before))):
        depth, at = 1, found.end()
        while at < len(before) and depth:
            depth += {ord("("): 1, ord(")"): -1}.get(before[at], 0)
            at += 1
        if depth == 0 and not before[at:].strip():
            return before[found.end() : at - 1].decode("utf-8", errors="replace")
    return None


def _pins(loop: Loop, data: bytes, ctx: int, written: set[str]) -> bool:
    """True when branch `ctx` runs only in the iteration where `loop.var == c`."""
    if ctx >= 0 or loop.var is None or not (loop.step or loop.step_symbol):
        return False
    text = _condition(data, -ctx - 1)
    match = _EQUAL.match(text) if text is not None else None
    if match is None:
        return False
    left, right = match.groups()
    value = right if left == loop.var else left if right == loop.var else None
    if value is None or value == loop.var:
        return False
    return not (_WORD.fullmatch(value) and value in written)


def _pinned(loop: Loop, refs: list[Ref], data: bytes, written: set[str]) -> bool:
    for ref in refs:
        try:
            after = ref.context[ref.context.index(loop.id) + 1 :]
        except ValueError:
            return False  # in the loop's header: every iteration
        if any(ctx >= 0 for ctx in after):
            return False  # in an inner loop: a collapsed nest would split it
        if not any(_pins(loop, data, ctx, written) for ctx in after):
            return False
    return True


def pinned_scalars(
    loop: Loop, source: SourceFile, obstacles: tuple[Obstacle, ...]
) -> tuple[tuple[Obstacle, ...], tuple[ScalarFact, ...]]:
    """The scalar obstacles left, and facts for the scalars one iteration owns."""
    written = {
        re.split(r"->|\.|\[", r.name)[0].strip() for r in loop.refs if r.is_write
    }
    kept: list[Obstacle] = []
    facts: list[ScalarFact] = []
    for obstacle in obstacles:
        name = obstacle.variable or ""
        refs = [r for r in loop.refs if name and r.name == name and not r.subscripts]
        if (
            obstacle.code is ObstacleCode.CONDITIONAL_LAST
            and refs
            and not any(r.deref or r.member or r.escapes for r in refs)
            and _pinned(loop, refs, source.data, written)
        ):
            facts.append(
                ScalarFact(
                    name=name,
                    cls=ScalarClass.SHARED,
                    written=True,
                    line=obstacle.line,
                    why=f"`{name}` is touched only under `{loop.var} == ...` "
                    f"(line {obstacle.line}): one iteration writes it, so it keeps "
                    "that iteration's value after the loop",
                )
            )
            continue
        flag = None
        if obstacle.code is ObstacleCode.CONDITIONAL_LAST and refs:
            flag = flag_reduction(loop, obstacle, refs, source)
        if flag is not None:
            facts.append(flag)
            continue
        if obstacle.code is ObstacleCode.CONDITIONAL_LAST and refs:
            obstacle = _idempotent_note(obstacle, refs, source.data, written)
        kept.append(obstacle)
    return tuple(kept), tuple(facts)


def _stored(ref: Ref, data: bytes) -> str | None:
    """The value a plain store `x = v;` of `ref` writes, when it is one word."""
    after = data[ref.span.end_byte : ref.span.end_byte + 80].decode(
        "utf-8", errors="replace"
    )
    found = re.match(r"\s*=\s*(-?\w+)\s*;", after)
    return found.group(1) if found is not None else None


def _idempotent_note(
    obstacle: Obstacle, refs: list[Ref], data: bytes, written: set[str]
) -> Obstacle:
    """The reason, saying why a flag every writing iteration sets alike stays out."""
    stores = [r for r in refs if r.is_write]
    values = {_stored(r, data) for r in stores}
    if len(values) != 1 or any(r.is_read for r in refs):
        return obstacle
    (value,) = values
    if value is None or value in written:
        return obstacle
    return replace(
        obstacle,
        message=f"{obstacle.message}; every store writes `{value}`, but stores from "
        "several iterations race even when they store one value",
    )
