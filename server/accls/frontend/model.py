"""The syntactic model of a C file: references, declarations, pragmas (not loops)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from accls.frontend.poly import Poly

Point = tuple[int, int]
"""A (row, byte column) pair, both 0-based, as tree-sitter reports them."""


@dataclass(frozen=True, slots=True)
class Span:
    """A region of the source: byte offsets plus (row, byte-column) points."""

    start_byte: int
    end_byte: int
    start: Point
    end: Point

    @property
    def line(self) -> int:
        """1-based line of the start."""
        return self.start[0] + 1

    @property
    def column(self) -> int:
        """1-based byte column of the start."""
        return self.start[1] + 1


class AccessKind(StrEnum):
    """How a reference touches its variable."""

    READ = "read"
    WRITE = "write"
    UPDATE = "update"  # read-modify-write: `x += e`, `x++`


class RedOp(StrEnum):
    """Reduction operators, spelled as OpenMP and OpenACC spell them."""

    ADD = "+"
    MUL = "*"
    MIN = "min"
    MAX = "max"
    BAND = "&"
    BOR = "|"
    BXOR = "^"
    LAND = "&&"
    LOR = "||"


@dataclass(frozen=True, slots=True)
class Subscript:
    """One array subscript: its text and, when it is a polynomial, its value."""

    text: str
    poly: Poly | None  # None when not a polynomial (calls, division, ...)
    indirect: bool = False  # reads another array: `a[idx[i]]`
    # Scalars forward-substituted into it, as reason text: "`j` is 1 here (line 12)".
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Advance:
    """A scalar stepped by a constant: `t++`, `--t`, `t += 2`, `t -= k` (k literal)."""

    amount: int  # signed: `t--` is -1
    yields_old: bool  # the expression's value is the old one (`t++`), else the new
    span: Span  # the whole update expression
    statement: Span | None = None  # the statement it is, when its value is discarded


@dataclass(frozen=True, slots=True, kw_only=True)
class Ref:
    """One reference to a variable inside a loop body, in evaluation order."""

    name: str
    kind: AccessKind
    span: Span
    subscripts: tuple[Subscript, ...] = ()  # empty for a scalar reference
    reduction: RedOp | None = None  # part of a syntactic reduction pattern
    guarded: bool = False  # under a condition inside the loop (if, ?:, &&, ||)
    loops: tuple[int, ...] = ()  # ids of the enclosing loops, outermost first
    # Enclosing control constructs in the function, outermost first: loop ids
    # (>= 0) and conditional branches (< 0). A write covers a later read of the
    # same iteration when its context is a prefix of the read's.
    context: tuple[int, ...] = ()
    deref: bool = False  # through `*p` or `p->f`: the pointee, not the pointer
    member: bool = False  # a struct field `s.f` / `s->f` (the base name is kept)
    atomic: str = ""  # "acc"/"omp": inside an atomic or critical construct of it
    advance: Advance | None = None  # a constant step of a scalar (inductions)
    escapes: bool = False  # its address is taken (`&x`): it may change elsewhere
    # `p = &a[i]` or `T *p = &a[i]`: the plain variable the address is stored in.
    into: str = ""
    copies: str = ""  # `p = q`: the plain variable whose value this write stores
    fortran: bool = False  # written in Fortran: rendered `a(i, j)`, `s%f`
    # A compound assignment's operator ("<<=", "%="), on its UPDATE; else "".
    update_op: str = ""
    # `a[i].f`: the field `f` of the element (its first, under `a[i].f.g`); else "".
    field: str = ""

    def render(self) -> str:
        """The reference as its language writes it: `a[i][j - 1]`, `*p`, `a(i, j)`."""
        if self.fortran:
            # The model keeps the subscripts stride-1 last; Fortran writes it first.
            name = self.name.replace(".", "%")
            if not self.subscripts:
                return name
            return f"{name}({', '.join(s.text for s in reversed(self.subscripts))})"
        if not self.subscripts:
            return ("*" if self.deref else "") + self.name
        return self.name + "".join(f"[{s.text}]" for s in self.subscripts)

    @property
    def is_write(self) -> bool:
        """True for writes and read-modify-writes."""
        return self.kind is not AccessKind.READ

    @property
    def is_read(self) -> bool:
        """True for reads and read-modify-writes."""
        return self.kind is not AccessKind.WRITE


@dataclass(frozen=True, slots=True)
class Call:
    """A function call inside a loop."""

    name: str
    span: Span
    args: tuple[str, ...] = ()  # the arguments' text, white space folded


# The object a constructor call builds when it has no name (`P(x)`, `new P(x)`),
# passed as the constructor's `this`: fresh memory no other name reaches. `new`
# is a keyword, so no variable can be spelled so.
NEW_OBJECT = "<new>"

# Calls that end the program (or jump out of every frame): C's, and C++'s `std::`.
EXIT_CALLS = frozenset(
    {
        "exit", "abort", "_exit", "_Exit", "quick_exit", "longjmp",
        "std::exit", "std::abort", "std::_Exit", "std::quick_exit",
        "std::terminate", "std::longjmp",
    }
)  # fmt: skip


class ExitKind(StrEnum):
    """Statements that leave a loop early."""

    BREAK = "break"
    RETURN = "return"
    GOTO = "goto"
    EXIT = "exit"  # a call to exit()/abort()


@dataclass(frozen=True, slots=True)
class UserReduction:
    """A C++ class `operator+=` sums field by field: an OpenMP declare reduction."""

    type_name: str  # the class, as declarations name it
    op: RedOp
    combiner: str  # `omp_out += omp_in`
    initializer: str  # `omp_priv = Vec3()`
    after: int  # byte offset of the line after the class's definition
    line: int  # 1-based line of `after`
    fields: tuple[str, ...] = ()  # the fields the operator sums

    def directive(self) -> str:
        """The `declare reduction` directive's text, without `#pragma omp`."""
        return (
            f"declare reduction({self.op.value} : {self.type_name} : {self.combiner}) "
            f"initializer({self.initializer})"
        )


@dataclass(frozen=True, slots=True)
class Exit:
    """An early exit from a loop (a `break` only when it leaves that loop)."""

    kind: ExitKind
    span: Span


@dataclass(frozen=True, slots=True)
class Clause:
    """One pragma clause: name and raw argument text (None when it has none)."""

    name: str
    args: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Directive:
    """A parsed `#pragma acc|omp ...` line."""

    dialect: str  # "acc" or "omp"
    name: str  # "parallel loop", "data", "target teams distribute parallel for"
    clauses: tuple[Clause, ...] = ()
    text: str = ""
    span: Span | None = None
    malformed: bool = False  # text after the clauses could not be parsed

    def clause(self, name: str) -> Clause | None:
        """The first clause called `name`, if any."""
        return next((c for c in self.clauses if c.name == name), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Region:
    """An enclosing structured pragma region (data or compute) around a loop."""

    directive: Directive
    span: Span  # the pragma line through the end of its block


@dataclass(frozen=True, slots=True, kw_only=True)
class Branch:
    """Statements run on some paths only (`if`) or repeatedly (`loop`)."""

    kind: str  # "if" (then arm), "else" or "loop" (body)
    span: Span
    condition: str = ""  # the `if` condition or the loop header, as written
    # A C loop body's statement: "for", "while" or "do" (a `do ... while`, whose
    # body runs at least once); "" for an `if` arm or a Fortran loop.
    statement: str = ""


FROM_CALL = "()"
"""In `Var.sources`: a value that some call returned or wrote."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Var:
    """A declared variable."""

    name: str
    type: str  # the base type text, qualifiers stripped: "double", "DATA_TYPE"
    pointers: int = 0  # `*` count
    dims: tuple[str | None, ...] = ()  # array extents, None for `[]` or unknown
    restrict: bool = False
    const: bool = False
    # `volatile` anywhere in its declaration (`volatile int x`, `volatile double *p`,
    # `int *volatile p`): every access to it, or through it, is observable.
    volatile: bool = False
    scope: str = "local"  # "param", "local" or "global"
    span: Span | None = None
    unknown_shape: bool = False  # declared through a macro we could not expand
    fresh: bool = False  # a local pointer from malloc/calloc: aliases nothing else
    # Its initializer's element count `E`, from `malloc(E * sizeof(T))` or
    # `calloc(E, sizeof(T))` with T what it points to; "" when not that form.
    alloc_count: str = ""
    device: bool = False  # points to device memory (acc_malloc, omp_target_alloc)
    static: bool = False  # `static` storage: a local that outlives each call
    # A local: the end byte of the block (or the `for` statement) it is declared
    # in; its name means it from its declaration to there. -1 when unknown.
    scope_end: int = -1
    # The declarator's levels from the name outwards, "[" an array extent and "*"
    # a pointer: `double *t[2]` is "[*" (pointers in an array), `double (*r)[3]`
    # is "*[" (a pointer to rows). Empty when unknown: dims first, then pointers.
    levels: str = ""
    # Every pointer stored in it (`t[k] = malloc(..)`) is a fresh allocation of
    # its own: the objects its rows point to overlap nothing else.
    fresh_rows: bool = False
    # A local table whose rows would be fresh, were it not handed to a call that
    # may re-point a slot: the first byte from which that call's effect may be
    # read (the call, or the start of the outermost loop around it); else -1.
    rows_kept_until: int = -1
    restrict_rows: bool = False  # `double *restrict *t`: its rows never overlap
    # For a local pointer or table: the locals, parameters and global arrays or
    # pointers its value may be copied from (FROM_CALL "()" for a call's result),
    # whether its address is taken, and whether its value (or a row's) is stored
    # beyond the locals or passed to a call that may keep it.
    sources: tuple[str, ...] = ()
    address_taken: bool = False
    leaves: bool = False
    # Fortran: each dimension's first index as text, in `dims` order; "" unknown.
    lower_bounds: tuple[str, ...] = ()
    # A parameter whose declared extents are the object's own (a Fortran dummy
    # array), so the whole of it can be moved; a C array parameter is a pointer.
    shaped: bool = False
    # C++: a std::vector/array member, whose elements lie in a buffer it owns (no
    # other object shares it), and which a data clause cannot name.
    container: bool = False
    # A field declared inside anonymous members of its struct (C11
    # `struct { union { double d[N]; long l[N]; }; }`): each member on the way,
    # outermost first, as its position in the enclosing body and its kind,
    # "0u" (a union, first member) or "2s" (a struct, third member).
    route: tuple[str, ...] = ()
    bitfield: bool = False  # `unsigned lo : 4`: one memory location with its neighbours

    @property
    def shape(self) -> str:
        """The levels of its declarator (see `levels`)."""
        return self.levels or "[" * len(self.dims) + "*" * self.pointers

    @property
    def is_array(self) -> bool:
        """True for arrays and pointers."""
        return bool(self.dims) or self.pointers > 0 or self.unknown_shape

    @property
    def rank(self) -> int:
        """How many subscripts it takes."""
        return len(self.dims) + self.pointers


@dataclass(frozen=True, slots=True, kw_only=True)
class Function:
    """A function definition with a summary of its side effects."""

    name: str
    span: Span
    params: tuple[Var, ...]
    locals: tuple[Var, ...]
    writes_nonlocal: tuple[str, ...]  # globals or pointer parameters it writes
    calls: tuple[str, ...]
    pragmas: tuple[Directive, ...] = ()  # `acc routine`, `omp declare target`
    refs: tuple[Ref, ...] = ()  # every reference in the body, in evaluation order
    exits: tuple[Exit, ...] = ()  # every return/goto/exit() in the body
    call_sites: tuple[Call, ...] = ()  # every call in the body
    block_decls: tuple[tuple[int, Span], ...] = ()  # (block, span) of declarations
    static: bool = False  # `static`: only this file can call it
    # How many arguments a call may pass (`this` of a method counted): the
    # parameters without and with defaults; None for `...`, or when unknown.
    min_args: int = 0
    max_args: int | None = None
    # A C++ method defined in its class: no other declaration of it exists, so
    # no prototype gives its parameters defaults it does not show.
    in_class: bool = False
    # A C++ method defined outside its class, whose class this file holds: the
    # declaration in the class is its only other one (`min_args` counts its
    # defaults), so as for `in_class` no prototype elsewhere adds any.
    class_declared: bool = False
    # The first declaration of each name, locals before params: a function of
    # 10,000 loops declares `i` 10,000 times, so a scan per lookup is quadratic.
    _names: dict[str, Var] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _counts: dict[str, int] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _locals_named: dict[str, list[Var]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        for var in (*self.locals, *self.params):
            self._names.setdefault(var.name, var)
            self._counts[var.name] = self._counts.get(var.name, 0) + 1
        for var in self.locals:
            self._locals_named.setdefault(var.name, []).append(var)

    def locals_named(self, name: str) -> tuple[Var, ...]:
        """Every local declaration of `name`, in the order of `locals`."""
        return tuple(self._locals_named.get(name, ()))

    def lookup(self, name: str) -> Var | None:
        """The local or parameter declaration of `name`, if any."""
        return self._names.get(name)

    def declarations(self, name: str) -> int:
        """How many locals and parameters are called `name`."""
        return self._counts.get(name, 0)

    def resolving(self, chosen: Mapping[str, Var | None]) -> Function:
        """A copy whose `lookup` answers `chosen` for its names (None: no local)."""
        view = replace(self)
        for name, var in chosen.items():
            if var is None:
                view._names.pop(name, None)
            else:
                view._names[name] = var
        return view
