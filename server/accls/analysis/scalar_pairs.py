"""A running best value kept with its index (argmin/argmax): one reason, not two.

`if (d < best) { best = d; where = i; }` carries `best` between iterations and
leaves `where` to the last iteration that wrote it: two obstacles that are one
idea. OpenMP reduces `best` alone (`reduction(min:best)`); the pair needs a
struct with `declare reduction`, or per-thread copies merged in a `critical`
section: a rewrite, not a pragma, so the loop stays refused with that reason.
"""

from __future__ import annotations

from dataclasses import replace

from accls.analysis.model import Obstacle, ObstacleCode
from accls.frontend import Ref

__all__ = ["paired_best"]


def _branch(refs: list[Ref]) -> tuple[int, ...] | None:
    """The one context every write of `refs` is in, if they share one."""
    contexts = {r.context for r in refs if r.is_write}
    return next(iter(contexts)) if len(contexts) == 1 else None


def paired_best(
    obstacles: list[Obstacle], by_name: dict[str, list[Ref]], body: tuple[int, ...]
) -> list[Obstacle]:
    """`obstacles` with a carried value and the index set beside it merged.

    `body` is the loop body's context: the branch must lie inside it, and the
    value must be read before the branch, where its condition is evaluated.
    """
    carried = {
        o.variable: o for o in obstacles if o.code is ObstacleCode.SCALAR_CARRIED
    }
    last = {o.variable: o for o in obstacles if o.code is ObstacleCode.CONDITIONAL_LAST}
    out = list(obstacles)
    for value, obstacle in carried.items():
        refs = by_name.get(value or "", [])
        branch = _branch(refs)
        if branch is None or len(branch) <= len(body) or branch[: len(body)] != body:
            continue
        writes = [r for r in refs if r.is_write]
        if any(r.kind.value != "write" for r in writes):
            continue  # `best += d` is no running best
        tested = any(
            not r.is_write
            and r.context == branch[:-1]
            and r.span.line <= writes[0].span.line
            for r in refs
        )
        partner = next(
            (
                n
                for n in sorted(n for n in last if n)
                if n != value and _branch(by_name.get(n, [])) == branch
            ),
            None,
        )
        if not tested or partner is None:
            continue
        index = last[partner]
        lines = sorted({writes[0].span.line, index.line})
        message = (
            f"`{value}` and `{partner}` are set together under one condition "
            f"(line{'s' if len(lines) > 1 else ''} "
            f"{' and '.join(str(n) for n in lines)}), and `{value}` is read before "
            "them, where the condition is tested: a running best value kept with "
            "where it was found (an "
            "argmin or argmax). OpenMP's `min`/`max` reduction keeps the value "
            f"alone; the pair needs `{value}` and `{partner}` in a struct with a "
            "`declare reduction` (ties broken by the lowest index), or per-thread "
            "copies merged in a `critical` section: a rewrite accls does not make"
        )
        out = [
            replace(o, message=message) if o is obstacle else o
            for o in out
            if o is not index
        ]
    return out
