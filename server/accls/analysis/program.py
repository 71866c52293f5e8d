"""What the other files of the program say about their functions: summaries by name.

A translation unit sees only declarations of the functions the other files
define. The workspace index (`accls.project`) summarises those files and hands
the analysis this frozen table; the analysis itself stays pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from accls.analysis.field_facts import FieldFact
from accls.analysis.field_sets import FieldSets
from accls.analysis.global_sources import GlobalLink
from accls.analysis.pointer_slices import PointerSlice
from accls.analysis.remote_calls import ProgramCalls
from accls.analysis.summaries import Summary

if TYPE_CHECKING:
    from accls.analysis.device_kernels import DeviceKernel

__all__ = ["ArgumentOverlap", "Definition", "ProgramSummaries"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentOverlap:
    """A call that passes one object to two arguments, or two of its parameters.

    `f(a + 1, a, n)` in `main` gives `first` 0 and `second` 1: whatever `f`
    assumes of its array parameters, those two may be one array.
    """

    callee: str
    first: int  # argument positions, first < second
    second: int
    caller: str  # the calling function, in the file of `shown`
    shown: str  # "`main()` (main.c) passes `a + 1` and `a`"
    # Set when the two arguments are the caller's own parameters at these
    # positions (`wrap(p, q)` calls `f(p, q)`): they overlap only where a call
    # of the caller passes one object to both.
    via: tuple[int, ...] = ()
    # The two arguments surely name one object (`a + 1` and `a`), not merely
    # two pointers of unknown origin (two locals set from calls): enough to
    # break a `restrict` promise, which only such a call does.
    certain: bool = False
    # The two arguments are one text (`dot(x, x)`): the same elements through
    # both, which a caller mapping one section through both may allow. With
    # `via`: the caller's two parameters passed on as they are (`f(p, q)`), so
    # a call of the caller passing one text twice passes one text here too.
    same: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Definition:
    """One external function of another file: where it is and what it does."""

    name: str
    file: str  # as the user knows it (relative to the project when possible)
    line: int
    summary: Summary | None  # None: it has other effects, said by `why`
    why: str = ""  # "which writes the global `count`", when summary is None
    device: frozenset[str] = frozenset()  # "acc", "omp": marked for device code
    kernel: DeviceKernel | None = None  # its offloaded loops' arrays, when a kernel
    # Its pointer parameters used only at literal offsets (`p[0]` to `p[2]`).
    slices: tuple[PointerSlice, ...] = ()
    # Every return gives a fresh block (`return malloc(..)`): an allocator wrapper.
    allocator: bool = False
    # Its returns are tables of fresh, distinct rows (`alloc2d`): a row-table wrapper.
    row_table: bool = False
    # Its `T **` parameters at these positions get a fresh block in each slot it
    # sets (`fresh_rows(t, n)`: `t[k] = malloc(..)`): a row filler.
    row_fills: tuple[int, ...] = ()
    # Its `T **` parameters at these positions keep their rows where they were
    # (`row_steady`; `~position`: rows handed on, no slot stored).
    row_steady: tuple[int, ...] = ()
    # A call may set `errno` (`strtod`, `log`), or read it (an error report).
    sets_errno: bool = False
    reads_errno: bool = False

    @property
    def place(self) -> str:
        """`file:line` of the definition."""
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class ProgramSummaries:
    """The external functions the other files define, by name.

    `complete` is False while some files are still being indexed: a name that
    is missing may yet be found.
    """

    definitions: tuple[Definition, ...] = ()
    complete: bool = True
    # The other files' field facts; `whole` when they come from an index of
    # every file of the program (a compile database or a project folder).
    field_facts: tuple[FieldFact, ...] = ()
    whole: bool = False
    # The sets those facts and the analysed file's own make (set by `analyze`).
    fields: FieldSets | None = field(default=None, compare=False)
    # The functions the other files call (their externals; with `whole`, every call).
    called: frozenset[str] = frozenset()
    # The calls of the other files that pass one object to two arguments.
    overlaps: tuple[ArgumentOverlap, ...] = ()
    # What the files set their global pointers from (with the analysed file's own
    # when `analyze` adds them): `gp = &A[1]` in one file, `gp[i] = A[i]` in another.
    global_links: tuple[GlobalLink, ...] = ()
    # Every call of the other files, for proofs about all calls of a function.
    calls: ProgramCalls | None = None
    _by_name: dict[str, tuple[Definition, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        for found in self.definitions:
            known = self._by_name.get(found.name, ())
            self._by_name[found.name] = (*known, found)

    def lookup(self, name: str) -> tuple[Definition, ...]:
        """Every definition of `name`: none, one, or several (ambiguous)."""
        return self._by_name.get(name, ())

    def only(self, name: str) -> Definition | None:
        """The one definition of `name`; None when there is none or several."""
        found = self.lookup(name)
        return found[0] if len(found) == 1 else None

    def allocators(self) -> frozenset[str]:
        """The names whose one definition is an allocator wrapper."""
        return frozenset(
            name
            for name, found in self._by_name.items()
            if len(found) == 1 and found[0].allocator
        )

    def row_tables(self) -> frozenset[str]:
        """The allocators whose one definition returns a table of distinct rows."""
        return frozenset(
            name
            for name, found in self._by_name.items()
            if len(found) == 1 and found[0].allocator and found[0].row_table
        )

    def row_fillers(self) -> frozenset[tuple[str, int]]:
        """(name, position) of the row fillers whose one definition is known."""
        return frozenset(
            (name, at)
            for name, found in self._by_name.items()
            if len(found) == 1
            for at in found[0].row_fills
        )

    def row_steady(self) -> frozenset[tuple[str, int]]:
        """(name, position) of the parameters whose one definition keeps rows."""
        return frozenset(
            (name, at)
            for name, found in self._by_name.items()
            if len(found) == 1
            for at in found[0].row_steady
        )

    def without(self, files: Iterable[str]) -> ProgramSummaries:
        """The table without the definitions of `files` (a file's own view)."""
        drop = set(files)
        kept = tuple(d for d in self.definitions if d.file not in drop)
        return ProgramSummaries(
            kept,
            self.complete,
            self.field_facts,
            self.whole,
            called=self.called,
            overlaps=self.overlaps,
            global_links=self.global_links,
            calls=self.calls,
        )
