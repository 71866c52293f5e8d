"""Independent offloaded loops in a row: `async(q)` each, one `wait` after them.

Two kernels that touch no common variable (no array, no scalar, except scalars both
only read) can run at once: OpenACC puts each on its own queue (`async(1)`,
`async(2)`) and the host waits for all of them (`#pragma acc wait`) right after
the last, before any host code runs; OpenMP makes each target construct a deferred
task (`nowait`) and waits with `taskwait`. Sharing even a read-only array is
refused: two queues copying it in at once would race on its device copy.
Loops that call functions are refused too (a callee's memory is not in the sets).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from accls.analysis import FileAnalysis
from accls.analysis.access_paths import Target as Reached
from accls.analysis.access_paths import target_of
from accls.analysis.alias_pairs import pair_may_alias
from accls.analysis.call_sites import distinct_at_call_sites
from accls.analysis.pointer_casts import cast_assigned
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import Clause, Loop, SourceFile
from accls.suggest.lifetime_uses import base_name
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Pragma, Target
from accls.suggest.suggestion import Suggestion

__all__ = ["AsyncRun", "async_edits", "async_runs", "with_async"]

_COMMENT_OR_SPACE = (b" ", b"\t", b"\n", b"\r")


@dataclass(frozen=True, slots=True)
class AsyncRun:
    """Consecutive independent offloaded loops, and where their `wait` goes."""

    loops: tuple[int, ...]  # loop ids, in order; queue k + 1 for the k-th
    wait: int  # the last loop's end
    last: int  # the last loop's `for` keyword (the `wait` takes its indentation)
    dialect: Dialect
    reasons: tuple[str, ...]


def _touched(loop: Loop) -> tuple[set[str], set[str]]:
    """(read, written) names of the loop, less its own variables and locals."""
    own = {inner.var for inner in loop.walk() if inner.var}
    own |= {v.name for inner in loop.walk() for v in inner.locals}
    read: set[str] = set()
    written: set[str] = set()
    for ref in loop.refs:
        name = base_name(ref.name)
        if name in own:
            continue
        if ref.is_write:
            written.add(name)
        if ref.is_read:
            read.add(name)
    return read, written


def _arrays(loop: Loop) -> set[str]:
    return {base_name(r.name) for r in loop.refs if r.subscripts or r.deref}


def _targets(loop: Loop, source: SourceFile) -> dict[str, tuple[bool, list[Reached]]]:
    """(written?, objects reached) of each array name of the loop."""
    fn = source.function(loop.function)
    out: dict[str, tuple[bool, list[Reached]]] = {}
    for ref in loop.refs:
        if is_scalar_ref(ref):
            continue
        wrote, found = out.get(ref.name, (False, []))
        found.append(target_of(ref, fn, source.globals, source.types))
        out[ref.name] = (wrote or ref.is_write, found)
    return out


def _apart(a: Reached, b: Reached, loop: Loop, source: SourceFile) -> bool:
    """True when the objects two targets of one function reach cannot overlap."""
    fn = source.function(loop.function)
    typed = not (cast_assigned(a.root, fn, source) or cast_assigned(b.root, fn, source))
    if not pair_may_alias(a, b, fn, source.types, typed):
        return True
    roots = (a.root, b.root)
    return (
        fn is not None
        and a.kind == b.kind == "pointee"
        and a.root is not None
        and b.root is not None
        and a.root is not b.root
        and all(r.scope == "param" for r in roots if r is not None)
        and distinct_at_call_sites(fn, a.root.name, b.root.name, source) is not None
    )


def _overlap(a: Loop, b: Loop, source: SourceFile, held: bool) -> str | None:
    """A pair of names, one per loop, that may reach one array (`p = a`, `f(a, a)`).

    Pairs count when one of them is written or, outside a data region (`held`
    false), when both are copied in.
    """
    left, right = _targets(a, source), _targets(b, source)
    for name_a, (wrote_a, found_a) in left.items():
        for name_b, (wrote_b, found_b) in right.items():
            if name_a == name_b or (held and not (wrote_a or wrote_b)):
                continue
            if not all(_apart(x, y, a, source) for x in found_a for y in found_b):
                return f"{name_a}/{name_b}"
    return None


def _independent(a: Suggestion, b: Suggestion, source: SourceFile) -> bool:
    """True when neither loop touches what the other writes, under any name.

    Outside a data region they must share no array at all (both would copy it in);
    inside one they find their arrays present. Two names that may reach one
    object (a pointer copy, a parameter a call passes twice) count as one.
    """
    read_a, wrote_a = _touched(a.loop)
    read_b, wrote_b = _touched(b.loop)
    if wrote_a & (read_b | wrote_b) or wrote_b & read_a:
        return False
    held = a.region is not None and a.region == b.region
    if a.loop.function != b.loop.function or _overlap(a.loop, b.loop, source, held):
        return False
    return held or not _arrays(a.loop) & _arrays(b.loop)


def _adjacent(data: bytes, a: Loop, b: Loop) -> bool:
    """True when only white space and comments lie between the two loops."""
    if a.block != b.block or a.block < 0:
        return False
    between = data[a.span.end_byte : b.span.start_byte]
    while True:
        between = between.lstrip(b"".join(_COMMENT_OR_SPACE))
        if between.startswith(b"/*") and b"*/" in between:
            between = between[between.index(b"*/") + 2 :]
        elif between.startswith(b"//") and b"\n" in between:
            between = between[between.index(b"\n") + 1 :]
        else:
            return not between


def async_runs(
    analysis: FileAnalysis, suggestions: Sequence[Suggestion], opts: SuggestOptions
) -> tuple[AsyncRun, ...]:
    """Runs of two or more consecutive, pairwise independent offloaded loops."""
    if opts.dialect is Dialect.OPENMP and opts.target is not Target.GPU:
        return ()
    tops = sorted(
        (
            s
            for s in suggestions
            if s.pragma is not None
            and s.existing is None
            and not s.inner
            and s.offloaded
            and not s.loop.calls
            and not s.loop.regions
            and s.pragma.directive.split()[0] != "loop"  # inside a `kernels` region
        ),
        key=lambda s: s.loop.id,
    )
    data = analysis.source.data
    groups: list[list[Suggestion]] = []
    for top in tops:
        group = groups[-1] if groups else None
        if (
            group is not None
            and _adjacent(data, group[-1].loop, top.loop)
            and all(_independent(other, top, analysis.source) for other in group)
        ):
            group.append(top)
        else:
            groups.append([top])
    out: list[AsyncRun] = []
    for group in groups:
        if len(group) < 2:
            continue
        run = [s.loop for s in group]
        lines = ", ".join(str(loop.line) for loop in run)
        wait = "wait" if opts.dialect is Dialect.OPENACC else "taskwait"
        out.append(
            AsyncRun(
                loops=tuple(loop.id for loop in run),
                wait=run[-1].span.end_byte,
                last=run[-1].keyword.start_byte,
                dialect=opts.dialect,
                reasons=(
                    f"the offloaded loops at lines {lines} touch nothing the others "
                    "write (and copy no array in twice): each runs on its own "
                    "queue, and one "
                    f"`{wait}` after the last orders them before the host goes on",
                ),
            )
        )
    return tuple(out)


def with_async(
    suggestions: tuple[Suggestion, ...], runs: Sequence[AsyncRun]
) -> tuple[Suggestion, ...]:
    """The suggestions with `async(q)` (OpenMP `nowait`) on the runs' loops."""
    queue = {loop: k + 1 for run in runs for k, loop in enumerate(run.loops)}
    out: list[Suggestion] = []
    for s in suggestions:
        q = queue.get(s.loop.id)
        if q is None or s.pragma is None or s.inner:
            out.append(s)
            continue
        extra = (
            Clause("async", str(q))
            if s.pragma.dialect is Dialect.OPENACC
            else Clause("nowait")
        )
        pragma: Pragma = replace(s.pragma, clauses=(*s.pragma.clauses, extra))
        out.append(replace(s, pragma=pragma))
    return tuple(out)


def async_edits(
    data: bytes, runs: Sequence[AsyncRun], newline: str = "\n"
) -> list[tuple[int, int, str]]:
    """(offset, order, text) of each run's `wait` line, right after its last loop."""
    edits: list[tuple[int, int, str]] = []
    for run in runs:
        start = data.rfind(b"\n", 0, run.last) + 1
        line = data[start:]
        pad = line[: len(line) - len(line.lstrip(b" \t"))].decode("utf-8", "replace")
        acc = run.dialect is Dialect.OPENACC
        text = "#pragma acc wait" if acc else "#pragma omp taskwait"
        edits.append((run.wait, -2, f"{newline}{pad}{text}"))
    return edits
