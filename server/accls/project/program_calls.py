"""The program's calls as one file sees them, from the index's records."""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis.remote_calls import ProgramCalls
from accls.project.index_cache import FileSummaries

__all__ = ["program_calls"]


def program_calls(
    records: Sequence[FileSummaries], own: str, exported: bool | None, pending: bool
) -> ProgramCalls:
    """The calls of the files other than `own`, and whether they are all there are.

    Sealed when no build entry exports symbols (`exported` None: not read yet,
    the index still to build) and every file's calls were read (a file that
    could not be summarised leaves them unknown), and `own` is one of the
    project's files; `own`'s record adds the names it and its headers use other
    than in calls.
    """
    return ProgramCalls(
        files=tuple(r.calls for r in records if r.path != own and r.calls),
        # A file outside the project may be built into any other program.
        sealed=exported is False
        and all(r.calls for r in records)
        and any(r.path == own for r in records),
        pending=pending or exported is None,
        own_escaped=frozenset().union(
            *(r.calls.escaped for r in records if r.path == own and r.calls)
        ),
    )
