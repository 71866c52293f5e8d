"""The project's allocator wrappers a file calls, which its parse depends on.

`double *x = pos_alloc(n)`, with `pos_alloc` returning `malloc(..)` in another
file, is a fresh block only when the front end is told that `pos_alloc` is an
allocator wrapper (`with_program`): the file's call records (`x` passed as a
fresh block) and its summaries read it so. The index parses a file with the
program it knows at the time, which grows over a build's rounds; a parse stays
the file's reading while the wrappers among its calls are the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from accls.analysis import PURE_FUNCTIONS, ProgramSummaries
from accls.frontend import SourceFile

__all__ = ["Called", "allocating_first", "called_allocators", "external_calls"]

# (name, whether it returns a table of distinct rows, the positions of the tables
# it fills with fresh rows, of those whose rows it keeps) of each wrapper, row
# filler or row keeper called.
Called = frozenset[tuple[str, bool, tuple[int, ...], tuple[int, ...]]]
_ALLOCATES = re.compile(
    r"\b(?:malloc|calloc|realloc|aligned_alloc|posix_memalign)\s*\("
)


def allocating_first(
    paths: Sequence[str], texts: Mapping[str, tuple[str, str] | None]
) -> list[str]:
    """`paths`, those whose text (first of each pair) calls a C allocator first.

    Only the order of a cold build: a wrapper's file summarised before its
    callers' spares them a second parse in a later round.
    """
    return sorted(
        paths,
        key=lambda p: (got := texts.get(p)) is None or not _ALLOCATES.search(got[0]),
    )


def external_calls(source: SourceFile) -> tuple[str, ...]:
    """The functions the file calls and does not define (nor the pure library's)."""
    defined = {fn.name for fn in source.functions}
    calls = {c for fn in source.functions for c in fn.calls}
    return tuple(sorted(calls - defined - PURE_FUNCTIONS))


def called_allocators(externals: Iterable[str], program: ProgramSummaries) -> Called:
    """The allocator wrappers and row fillers among `externals`, as `program` has them.

    One definition of the name, an allocator: a name two files define may be
    either function, so it hands out nothing known to be fresh.
    """
    out: set[tuple[str, bool, tuple[int, ...], tuple[int, ...]]] = set()
    for name in externals:
        found = program.only(name)
        if found is not None and (
            found.allocator or found.row_fills or found.row_steady
        ):
            fresh = found.allocator and found.row_table
            out.add((name, fresh, found.row_fills, found.row_steady))
    return frozenset(out)
