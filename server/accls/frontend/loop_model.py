"""The model of a `for` (or Fortran `do`) loop: its header, bounds, body and pragmas."""

from __future__ import annotations

from dataclasses import dataclass

from accls.frontend.model import Call, Directive, Exit, Ref, Region, Span, Var
from accls.frontend.poly import Poly

__all__ = ["Limit", "Loop", "RangeFor"]


@dataclass(frozen=True, slots=True)
class Limit:
    """One affine limit on a loop variable: `scale*v >= poly`, or `<=` when upper."""

    poly: Poly
    scale: int = 1
    upper: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class RangeFor:
    """C++ `for (T x : range)`: read as an index loop over the range's elements."""

    range: str  # the range as written: `v`, `d.cells`
    element: str  # the variable declared: `x`
    size: str  # its element count as C++ text: `v.size()`, `N`
    # The exact index loop it stands for, header and element declaration, for a
    # dialect that does not accept a range-based `for` (OpenACC).
    rewrite: str
    # The variable's type, `auto` resolved to the element's and qualifiers,
    # `&` dropped (`int`, `double`); "" when not known.
    type: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Loop:
    """A `for` loop and everything the analysis needs to know about it."""

    id: int  # the start byte of the `for` statement: unique within a file
    span: Span  # the whole statement
    keyword: Span  # the `for` keyword
    header: Span  # `for (...)`
    body: Span
    function: str | None
    var: str | None  # the induction variable, when there is one
    var_declared: bool = False  # declared in the initializer: `for (int i = ...)`
    lower: Poly | None = None
    lower_text: str = ""
    upper: Poly | None = None  # the bound as written in the condition
    upper_text: str = ""
    cond_op: str | None = None  # "<", "<=", ">", ">=", "!="
    step: int | None = None  # constant step; None when unknown
    step_text: str = ""
    # A loop-invariant variable step of a rising loop (`j += Tile`), assumed
    # positive as OpenMP requires; `step` is None then.
    step_symbol: str = ""
    unbounded: str = ""  # the condition, when it never tests the induction variable
    # Limits from a bound that is not one polynomial (`max(0, t - 4)`,
    # `floord(n, 32)`), for the side whose `lower`/`upper` is None; all hold.
    limits: tuple[Limit, ...] = ()
    trip_count: str | None = None  # an expression text, None when unknown
    refs: tuple[Ref, ...] = ()  # references in the header bounds and the body
    calls: tuple[Call, ...] = ()
    exits: tuple[Exit, ...] = ()
    children: tuple[Loop, ...] = ()  # loops nested directly inside
    pragmas: tuple[Directive, ...] = ()  # pragmas attached directly above
    regions: tuple[Region, ...] = ()  # enclosing pragma regions, outermost first
    locals: tuple[Var, ...] = ()  # declared inside the body
    perfect: bool = False  # the body is exactly one `for` statement
    live_after: tuple[str, ...] = ()  # scalars read after the loop before a write
    volatile_bounds: tuple[str, ...] = ()  # names in the bounds written in the body
    opaque: bool = False  # part of the body nests too deeply to be analysed
    block: int = -1  # start byte of the block it is a statement of; -1 if none
    # Scalars of its bounds forward-substituted: "`lo` is i + 1 here (line 4)".
    substituted: tuple[str, ...] = ()
    fortran: bool = False  # a Fortran `do` loop: named `do i`, not `for (i)`
    # `do concurrent (i = 1:n, j = 1:m)`, modelled as a nest (last index outermost):
    # on its outermost loop, the `do` headers of the equivalent nest, outermost
    # first; `in_concurrent` marks its inner loops, which share its header line.
    concurrent: tuple[str, ...] = ()
    in_concurrent: bool = False
    # C++ range-based `for`: `var` is the element's index, `range` its elements.
    range_for: RangeFor | None = None
    # (then, else) context ids of the body's `if`s with an `else` (`Ref.context`)
    two_way: frozenset[tuple[int, int]] = frozenset()

    @property
    def title(self) -> str:
        """How its language names it: `for (i)`, `for (x : v)`, or `do i` in Fortran."""
        if self.fortran:
            return f"do {self.var}" if self.var else "do"
        if self.range_for is not None:
            return f"for ({self.range_for.element} : {self.range_for.range})"
        return f"for ({self.var})" if self.var else "for"

    @property
    def line(self) -> int:
        """1-based line of the `for` keyword."""
        return self.keyword.line

    @property
    def column(self) -> int:
        """1-based column of the `for` keyword."""
        return self.keyword.column

    def walk(self) -> tuple[Loop, ...]:
        """This loop and every loop nested inside it, outer first."""
        out: list[Loop] = [self]
        for child in self.children:
            out.extend(child.walk())
        return tuple(out)
