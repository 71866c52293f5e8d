"""Two mapped names that one call passes one array: both `copy`, never split.

`scale_into(y, x, n)` called once as `scale_into(u, u, n)` maps `copyin(x)`
and `copyout(y)` over one storage there. The second mapping finds the first
present, and which clause's exit brings the count to zero (and so whether the
result is copied back at all) is up to the implementation. Mapping both with
`copy` copies the storage in once and back once, whichever exit comes last.
"""

from __future__ import annotations

from accls.analysis.array_params import passed_twice
from accls.analysis.program import ProgramSummaries
from accls.frontend import Function, SourceFile

__all__ = ["one_storage_copies"]

_SPLIT = frozenset({"copyin", "copyout"})


def one_storage_copies(
    chosen: dict[str, tuple[str, str]],
    groups: dict[str, list[str]],
    reasons: list[str],
    fn: Function | None,
    source: SourceFile,
    program: ProgramSummaries | None,
) -> None:
    """Map as `copy` each pair a call passes one object whose kinds differ.

    `chosen` holds each mapped name's (kind, item); `groups` and `reasons` are
    updated in place.
    """
    if fn is None:
        return
    names = sorted(chosen)
    for k, one in enumerate(names):
        for two in names[k + 1 :]:
            kinds = {chosen[one][0], chosen[two][0]}
            if len(kinds) < 2 or not kinds & _SPLIT:
                continue
            shown = passed_twice(fn, one, two, source, program)
            if not shown:
                continue
            for name in (one, two):
                kind, item = chosen[name]
                if kind == "copy":
                    continue
                groups[kind].remove(item)
                if not groups[kind]:
                    del groups[kind]
                groups.setdefault("copy", []).append(item)
                reasons[:] = [r for r in reasons if not r.startswith(f"{kind}({item})")]
                reasons.append(
                    f"copy({item}): `{one}` and `{two}` may be one array ({shown}), "
                    "mapped once in and once out"
                )
                chosen[name] = ("copy", item)
