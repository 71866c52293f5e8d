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
from accls.frontend import Clause, Loop
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


def _independent(a: Suggestion, b: Suggestion) -> bool:
    """True when neither loop touches what the other writes.

    Outside a data region they must share no array at all (both would copy it in);
    inside one they find their arrays present.
    """
    read_a, wrote_a = _touched(a.loop)
    read_b, wrote_b = _touched(b.loop)
    if wrote_a & (read_b | wrote_b) or wrote_b & read_a:
        return False
    held = a.region is not None and a.region == b.region
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
            and all(_independent(other, top) for other in group)
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
