"""`kernels` regions for a file that already uses them: one around a run of loops.

A file whose author writes `#pragma acc kernels` regions (a block, not `kernels
loop`) gets new offloaded loops in the same style: a proposed data region's run of
consecutive loops becomes one `kernels` region with the region's data clauses,
and each loop in it `loop independent` with its own levels and reductions. Loops
whose pragma needs a clause the `loop` directive does not take (`firstprivate`,
`default`) keep their `parallel loop`, and so does their run.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.suggest.pragma import Dialect, Pragma
from accls.suggest.suggestion import Suggestion

__all__ = ["uses_kernels_regions", "with_kernels_regions"]

_KERNELS_REGION = re.compile(
    r"^[ \t]*#[ \t]*pragma[ \t]+acc[ \t]+kernels\b(?![ \t]+loop\b)", re.M
)
# Clauses of the compute construct, not of `loop`: they go, or stay on the region.
_CONSTRUCT_ONLY = frozenset(
    {
        "copy",
        "copyin",
        "copyout",
        "create",
        "present",
        "deviceptr",
        "num_gangs",
        "num_workers",
        "vector_length",
        "async",
        "wait",
        "if",
    }
)
_REFUSED = frozenset({"firstprivate", "default"})


def uses_kernels_regions(text: str) -> bool:
    """True when the file holds a `#pragma acc kernels` region (not `kernels loop`)."""
    return _KERNELS_REGION.search(text) is not None


def _as_loop(pragma: Pragma) -> Pragma:
    words = pragma.directive.split()
    rest = [w for w in words if w not in ("parallel", "kernels", "loop")]
    clauses = tuple(c for c in pragma.clauses if c.name not in _CONSTRUCT_ONLY)
    return replace(
        pragma, directive=" ".join(["loop", *rest, "independent"]), clauses=clauses
    )


def with_kernels_regions(suggestions: tuple[Suggestion, ...]) -> tuple[Suggestion, ...]:
    """The suggestions with each OpenACC data region's run made one `kernels` region."""
    members: dict[int, list[Suggestion]] = {}
    for s in suggestions:
        if (
            s.region is not None
            and s.region.around is None
            and s.pragma is not None
            and s.pragma.dialect is Dialect.OPENACC
            and not s.inner
            and s.existing is None
        ):
            members.setdefault(s.region.loops[0].id, []).append(s)
    converted: set[int] = set()
    for first, group in members.items():
        if all(
            {"parallel", "kernels"} & set(s.pragma.directive.split())
            and not any(c.name in _REFUSED for c in s.pragma.clauses)
            for s in group
            if s.pragma is not None
        ) and len(group) == len(group[0].region.loops if group[0].region else ()):
            converted.add(first)
    out: list[Suggestion] = []
    for s in suggestions:
        region = s.region
        if region is None or region.loops[0].id not in converted:
            out.append(s)
            continue
        kernels = replace(region, pragma=replace(region.pragma, directive="kernels"))
        pragma = s.pragma
        if pragma is not None and not s.inner and s.existing is None:
            pragma = _as_loop(pragma)
        out.append(replace(s, region=kernels, pragma=pragma))
    return tuple(out)
