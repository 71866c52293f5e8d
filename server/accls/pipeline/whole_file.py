"""The suggestion passes that need the whole file, and carrying them to a slice.

`present` for a kernel function every call of which runs inside its caller's data
region, `present` after the user's `enter data`, and `routine vector` for a
callee whose loop is parallel each read every call of the file. The command line
runs them on its whole file; the editor analyses a slice around the cursor's
function, so it takes what they changed from an analysis of the whole buffer.
"""

from __future__ import annotations

from dataclasses import replace

from accls.analysis import FileAnalysis
from accls.suggest import Suggestion
from accls.suggest.callee_present import callee_present
from accls.suggest.entered_present import entered_present
from accls.suggest.routine_vector import vector_routines

__all__ = ["whole_file_passes", "with_whole_file"]


def whole_file_passes(
    analysis: FileAnalysis, found: tuple[Suggestion, ...]
) -> tuple[Suggestion, ...]:
    """`found` after the passes that need every call of the file.

    `analysis` must be of a whole file: on a slice, calls from the functions
    it blanked would be missed.
    """
    found = callee_present(analysis, found, whole=True)
    return entered_present(analysis, vector_routines(analysis, found))


def _agree(mine: Suggestion, theirs: Suggestion) -> bool:
    """Whether the slice's suggestion is the whole file's before the passes."""
    return (
        mine.pragma == theirs.pragma
        and mine.routines == theirs.routines
        and mine.inner == theirs.inner
        and mine.existing == theirs.existing
    )


def with_whole_file(
    found: tuple[Suggestion, ...],
    base: tuple[Suggestion, ...],
    after: tuple[Suggestion, ...],
) -> tuple[Suggestion, ...]:
    """`found`, a slice's suggestions, with what the whole-file passes changed.

    `base` are the whole buffer's suggestions for the same options and `after`
    the same after `whole_file_passes` (a loop's id, its start byte, is the same
    in the slice and the buffer). A loop takes the passes' pragma, routines and
    reasons only where the slice suggested what the whole file did before them:
    where the two disagree, the slice's stands as it was.
    """
    changed = {
        b.loop.id: (b, a) for b, a in zip(base, after, strict=True) if a is not b
    }
    if not changed:
        return found
    out: list[Suggestion] = []
    for s in found:
        pair = changed.get(s.loop.id)
        if pair is None or not _agree(s, pair[0]):
            out.append(s)
            continue
        before, now = pair
        dropped = now.region is None and before.region is not None
        out.append(
            replace(
                s,
                pragma=now.pragma,
                routines=now.routines,
                reasons=now.reasons,
                region=None if dropped else s.region,
            )
        )
    return tuple(out)
