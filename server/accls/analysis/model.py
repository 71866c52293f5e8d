"""Values the analysis produces: dependences, scalar classes and loop facts."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from accls.frontend import Loop, RedOp, Ref, Span

__all__ = [
    "ArrayReduction",
    "DepKind",
    "Dependence",
    "Escape",
    "Induction",
    "InductionUse",
    "LoopFacts",
    "Obstacle",
    "ObstacleCode",
    "ScalarClass",
    "ScalarFact",
]


class DepKind(StrEnum):
    """The three kinds of data dependence."""

    FLOW = "flow"  # write then read
    ANTI = "anti"  # read then write
    OUTPUT = "output"  # write then write


@dataclass(frozen=True, slots=True, kw_only=True)
class Dependence:
    """A dependence between two array references, carried by one loop level."""

    array: str
    kind: DepKind
    source: Span  # the reference in the earlier iteration
    sink: Span  # the reference in the later iteration
    loops: tuple[int, ...]  # ids of the common loops, outermost first
    direction: tuple[str, ...]  # per common loop: "<", "=", ">" or "*"
    distance: tuple[int | None, ...]  # per common loop, None when not constant
    carrier: int | None  # id of the carrying loop; None when loop-independent
    exact: bool = True  # proved by an exact test, not assumed
    reason: str = ""  # why it was assumed, when not exact


@dataclass(frozen=True, slots=True, kw_only=True)
class Escape:
    """An array reference whose subscript may leave its declared extent.

    In C, `x[i][j - 1]` at `j == 0` reads the last element of the previous row,
    so the subscripts no longer tell rows apart.
    """

    ref: Ref
    dim: int  # 0-based position of the subscript
    bound: str  # the bound it crosses: "0" or the extent's text
    certain: bool  # crossed whenever the loops run, not only for some sizes


class ScalarClass(StrEnum):
    """How a scalar must be treated when a loop runs in parallel."""

    PRIVATE = "private"
    FIRSTPRIVATE = "firstprivate"
    LASTPRIVATE = "lastprivate"
    REDUCTION = "reduction"
    SHARED = "shared"
    INDUCTION = "induction"  # the loop's own variable
    CARRIED = "carried"  # a value flows between iterations: not parallel


@dataclass(frozen=True, slots=True, kw_only=True)
class ScalarFact:
    """The classification of one scalar in one loop, with its justification."""

    name: str
    cls: ScalarClass
    op: RedOp | None = None
    line: int = 0  # the line that justifies the class
    why: str = ""
    declared_inside: bool = False  # private by scope: needs no clause
    written: bool = False  # a shared scalar the loop stores: offloaded, it is copied
    # A lastprivate scalar of a loop that may run no iteration: it needs a
    # firstprivate too, so that an empty loop copies out the original value.
    keep_first: bool = False
    # Other operators a reduction may be written with to the same effect: a
    # 0/1 flag's `||` beside the `max` suggested (see flag_reductions).
    also: tuple[RedOp, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ArrayReduction:
    """An array a loop only accumulates into: `reduction(op:name section)`."""

    name: str
    op: RedOp
    section: str  # "[0:10]", "[x:1]"; "" for the whole fixed-size array
    elements: int  # how many elements the section holds: each thread's copy
    line: int  # its first update
    why: str


class ObstacleCode(StrEnum):
    """Why a loop cannot run in parallel: the stable short code of an `Obstacle`."""

    ALIAS = "alias"  # pointers that may overlap
    AMBIGUOUS = "ambiguous"  # its function is defined twice, the #if branch unknown
    BOUND = "bound"  # the bound uses a variable the body modifies
    CLASS_PRIVATE = "class-private"  # C++: a private copy of a class it cannot make
    CALL = "call"  # a call with unknown effects
    CONDITIONAL_INDUCTION = "conditional-induction"  # advanced on some paths
    CONDITIONAL_LAST = "conditional-last"  # written under a condition, used after
    DEPENDENCE = "dependence"  # a carried (or possible) array dependence
    EXIT = "exit"  # break, return or goto out of the loop
    EXTENT = "extent"  # an access outside the declared extent
    INDUCTION = "induction"  # the loop variable is modified in the body
    INDUCTION_VARIABLE = "induction-variable"  # a rewritable counter
    INTERNAL = "internal"  # the dependence analysis failed on the nest
    MEMBER_WRITE = "member-write"  # a structure member written each iteration
    OPAQUE = "opaque"  # a body nested too deeply to analyse
    POINTER = "pointer"  # writes through a pointer the loop re-points
    ROUNDING = "rounding"  # a total in single precision: the grouping changes it
    SCALAR_CARRIED = "scalar-carried"  # a scalar read before it is written
    SHAPE = "shape"  # not canonical form, or a non-integer variable
    STATIC = "static"  # a `static` declared inside the loop
    SYNTAX = "syntax"  # a syntax error inside the loop
    TOO_LARGE = "too-large"  # too large to analyse within the budget
    UNBOUNDED = "unbounded"  # the loop, or one inside it, has no bound
    VOLATILE = "volatile"  # writes a `volatile` object: every access is observable
    WIDE = "wide"  # a total over eight bytes: its atomic combine needs libatomic


@dataclass(frozen=True, slots=True, kw_only=True)
class Obstacle:
    """A reason a loop cannot run in parallel: names the line and the variable."""

    code: ObstacleCode
    line: int
    message: str
    variable: str | None = None
    assumption: bool = False  # lifted by an explicit setting (aliasing)


@dataclass(frozen=True, slots=True, kw_only=True)
class InductionUse:
    """One occurrence of an induction variable in the loop body."""

    span: Span  # the update expression, or the name when it is only read
    offset: int  # its value is `t0 + step*k + offset` in iteration k
    discarded: bool  # an update whose value is not used: it goes away
    statement: Span | None = None  # the whole statement, when it is only that


@dataclass(frozen=True, slots=True, kw_only=True)
class Induction:
    """A scalar with a closed form in the loop's iteration number."""

    name: str
    step: int  # how far it advances in one iteration
    line: int  # the first advance
    uses: tuple[InductionUse, ...]  # in evaluation order


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopFacts:
    """What the analysis proved about one loop."""

    loop: Loop
    parallel: bool
    obstacles: tuple[Obstacle, ...]
    scalars: tuple[ScalarFact, ...]
    dependences: tuple[Dependence, ...]  # carried by this loop
    assumptions: tuple[str, ...] = ()  # stated assumptions behind `parallel`
    pure_calls: tuple[str, ...] = ()  # functions of this file it calls, all pure
    atomics: tuple[Ref, ...] = ()  # updates that need `atomic` to run in parallel
    escapes: tuple[Escape, ...] = ()  # accesses of arrays it writes that leave a row
    # Counters with a closed form: the loop is parallel once they are rewritten.
    inductions: tuple[Induction, ...] = ()
    # Why calls of functions that write memory are safe here (summaries).
    call_effects: tuple[str, ...] = ()
    # Scalar values forward-substituted into its subscripts: "`j` is 1 here (line 12)".
    substitutions: tuple[str, ...] = ()
    # Scratch arrays every iteration writes before it reads them: parallel with a
    # private copy each (`private(t)`); `dependences` still lists their reuse.
    private_arrays: tuple[str, ...] = ()
    # Heap blocks reached only by one pointer, scratch like `private_arrays`:
    # (pointer, element count); OpenACC `private(t[0:count])`, no OpenMP clause.
    private_blocks: tuple[tuple[str, str], ...] = ()
    # Arrays every thread accumulates into a private copy of (OpenMP only).
    array_reductions: tuple[ArrayReduction, ...] = ()
