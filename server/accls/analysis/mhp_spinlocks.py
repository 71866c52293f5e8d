"""Hand-made test-and-set locks: an atomic capture spun on, released by an atomic write.

    while (old) {
    #pragma omp atomic capture
      { old = lk; lk = 1; }
    }
    ... the code the lock protects ...
    #pragma omp atomic write
    lk = 0;

The loop ends only when this thread swapped `lk` from 0 to 1, so the lock `lk` is
held from the end of the loop to the atomic write that stores 0 again. Such a lock
explains the `flush` constructs and the memory orders of its own atomics, which
otherwise leave the region undecided: a `flush` between the loop and the release,
or right after the release, belongs to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.mhp_constructs import first_word, pragma_at
from accls.frontend import Region, SourceFile

__all__ = ["SpinLock", "spin_locks"]


@dataclass(frozen=True, slots=True)
class SpinLock:
    """One hand-made lock: its flag, where it is held, what it explains."""

    flag: str
    acquired: int  # byte where it is held: the end of the spin loop
    released: int  # the pragma of the atomic write that stores 0
    line: int
    parts: frozenset[int]  # pragma starts of the constructs it explains


def _words(c: Region) -> set[str]:
    return set(c.directive.name.split()) | {cl.name for cl in c.directive.clauses}


def spin_locks(
    region: Region, inner: list[Region], source: SourceFile
) -> list[SpinLock]:
    """The test-and-set locks of the region, acquired and released in one block."""
    data = source.data
    out: list[SpinLock] = []
    atomics = [c for c in inner if first_word(c) == "atomic"]
    for grab in atomics:
        if "capture" not in _words(grab):
            continue
        text = data[grab.span.start_byte : grab.span.end_byte].decode(
            "utf-8", "replace"
        )
        m = re.fullmatch(
            r"\s*\{\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*;\s*\2\s*=\s*1\s*;\s*\}\s*",
            text,
        )
        if m is None:
            continue
        old, flag = m.group(1), m.group(2)
        spins = [
            b
            for b in source.branches
            if b.kind == "loop"
            and b.span.start_byte <= grab.span.start_byte < b.span.end_byte
            and re.search(rf"\b{old}\b", b.condition)
        ]
        if not spins:
            continue
        loop = min(spins, key=lambda b: b.span.end_byte - b.span.start_byte)
        acquired = loop.span.end_byte
        release = next(
            (
                c
                for c in atomics
                if pragma_at(c) >= acquired
                and "write" in _words(c)
                and re.fullmatch(
                    rf"\s*{flag}\s*=\s*0\s*;?\s*",
                    data[c.span.start_byte : c.span.end_byte].decode(
                        "utf-8", "replace"
                    ),
                )
            ),
            None,
        )
        if release is None or not _same_block(source, acquired, pragma_at(release)):
            continue
        after = release.span.end_byte
        parts = {pragma_at(grab), pragma_at(release)}
        parts |= {
            pragma_at(c)
            for c in inner
            if first_word(c) == "flush"
            and (acquired <= pragma_at(c) < pragma_at(release) or _next(data, after, c))
        }
        out.append(
            SpinLock(
                flag, acquired, pragma_at(release), grab.span.line, frozenset(parts)
            )
        )
    return out


def _next(data: bytes, after: int, c: Region) -> bool:
    """True when the construct's pragma follows `after` with only blanks between."""
    return not data[after : pragma_at(c)].strip()


def _same_block(source: SourceFile, start: int, end: int) -> bool:
    """True when no `if` arm or loop body holds one end and not the other."""
    return not any(
        (b.span.start_byte <= start < b.span.end_byte)
        != (b.span.start_byte <= end < b.span.end_byte)
        for b in source.branches
    )
