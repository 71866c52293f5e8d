"""The state of a walk through one function, and how references are recorded."""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from accls.frontend.exprs import node_text, span_of
from accls.frontend.forward_subst import Definition
from accls.frontend.loop_model import RangeFor
from accls.frontend.macros import MacroTable
from accls.frontend.model import (
    AccessKind,
    Advance,
    Call,
    Directive,
    Exit,
    ExitKind,
    RedOp,
    Ref,
    Region,
    Span,
    Subscript,
    Var,
)
from accls.frontend.poly import Poly
from accls.frontend.secondary_inductions import SecondaryLoop

__all__ = ["UNREAD_CALL", "LoopRecord", "Recorder"]

# The call that text the walk cannot read stands for, so that a function holding
# it has unknown effects for its callers: a name no C function can have.
UNREAD_CALL = "unread text"

# Names a macro-call type may have that are real types (GNU C, C23).
_TYPEOF = frozenset(
    {"typeof", "__typeof__", "__typeof", "typeof_unqual", "__typeof_unqual__"}
)


@dataclass(slots=True)
class LoopRecord:
    """What the walk saw of one `for` statement; turned into a Loop later."""

    node: Node
    id: int
    outer_loops: tuple[int, ...]
    context: tuple[int, ...]
    ref_start: int
    call_start: int
    decl_start: int
    pragmas: tuple[Directive, ...]
    regions: tuple[Region, ...]
    block: int = -1  # the block the loop is a statement of; -1 if none
    ref_end: int = 0
    call_end: int = 0
    # Set by a `continue` or `break` in this loop's body: what follows it in the
    # same iteration may not run, so it is conditional.
    skip_mark: int | None = None
    opaque: bool = False  # part of the body was too deep to walk
    decl_end: int = 0
    exits: list[Exit] = field(default_factory=list)
    children: list[LoopRecord] = field(default_factory=list)
    # Scalars of the header forward-substituted, and their reason texts.
    bound_values: dict[str, Poly] = field(default_factory=dict)
    bound_notes: tuple[str, ...] = ()
    # C++: the header's accessor calls by text, each the member it reads
    # (`g.ny()`: `g->m_ny`; see call_bounds).
    call_bounds: dict[str, str] = field(default_factory=dict)
    # Variables advanced beside the loop variable, before the checks that the
    # whole function's references allow their closed form (see walker).
    secondary: SecondaryLoop | None = None
    # C++ `for (T x : range)`: its index variable and what it iterates.
    range_var: str = ""
    range_for: RangeFor | None = None


class Recorder:
    """Walk state shared by the statement and expression walkers."""

    def __init__(
        self,
        name: str | None,
        macros: MacroTable,
        params: frozenset[str] = frozenset(),
        inactive: frozenset[int] = frozenset(),
    ) -> None:
        self.name = name
        self.macros = macros
        self.inactive = inactive  # 1-based lines the build's #if branches skip
        self._escaping = False  # recording the place whose address `&` takes
        self._into = ""  # the variable that address is stored in, if a plain one
        self.params = params
        self.refs: list[Ref] = []
        self.calls: list[tuple[Call, tuple[int, ...]]] = []
        self.call_refs: list[int] = []  # references recorded before each call
        self.definitions: list[Definition] = []  # candidates for forward substitution
        self.header_decls: set[int] = set()  # indices of decls made in loop headers
        self.cyclic: set[int] = set()  # contexts of `while`/`do` loops: they repeat
        # (then, else) contexts of each `if` with an `else`: one of them always runs
        self.two_way: set[tuple[int, int]] = set()
        self.unsubstituted: set[int] = set()  # refs of `for` updates (see walker)
        self.decls: list[Var] = []
        self.nests: list[LoopRecord] = []
        self.exits: list[Exit] = []
        self._ctx: list[int] = []
        self._loops: list[LoopRecord] = []
        self._breakable: list[LoopRecord | None] = []
        self._continuable: list[LoopRecord | None] = []
        self._marked = 0  # loops on the stack with a skip mark
        self._regions: list[Region] = []
        self._tag: tuple[str, RedOp] | None = None
        self._block_id = -1  # the block whose statements are being walked
        self._scope_end = -1  # the end of the block or `for` declaring names now
        self._direct = -1  # start of the statement directly in that block
        self.block_decls: list[tuple[int, Span]] = []
        self._atomic: list[str] = []  # dialects of enclosing atomic/critical constructs
        self._override: Span | None = None
        self._macro_depth = 0
        # GNU nested functions defined so far: a call of one is no call of the
        # file's function of that name (if any), whose summary would not hold.
        self.nested_functions: set[str] = set()
        self._expanding: set[str] = set()  # object-like macros being expanded

    # ----- recording -------------------------------------------------------
    def _span(self, node: Node) -> Span:
        return self._override if self._override is not None else span_of(node)

    def _ref(
        self,
        node: Node,
        name: str,
        kind: AccessKind,
        *,
        subscripts: tuple[Subscript, ...] = (),
        reduction: RedOp | None = None,
        deref: bool = False,
        member: bool = False,
        advance: Advance | None = None,
        escapes: bool = False,
        field: str = "",
    ) -> None:
        if reduction is None and self._tag is not None and self._tag[0] == name:
            reduction = self._tag[1]
        # Under `&a[i]` only the place escapes, not what its subscripts read.
        escaping = self._escaping and kind is not AccessKind.READ
        self.refs.append(
            Ref(
                name=name,
                kind=kind,
                span=self._span(node),
                subscripts=subscripts,
                reduction=reduction,
                guarded=self._guarded(),
                loops=tuple(rec.id for rec in self._loops),
                context=self._context(),
                deref=deref,
                member=member,
                atomic=self._atomic[-1] if self._atomic else "",
                advance=advance,
                escapes=escapes or escaping,
                into=self._into if escaping else "",
                field=field,
            )
        )

    def _context(self) -> tuple[int, ...]:
        if not self._marked:
            return tuple(self._ctx)
        marks = {r.id: r.skip_mark for r in self._loops if r.skip_mark is not None}
        out: list[int] = []
        for item in self._ctx:
            out.append(item)
            mark = marks.get(item)
            if mark is not None:
                out.append(mark)
        return tuple(out)

    def _skip(self, rec: LoopRecord | None, node: Node) -> None:
        """Mark the rest of `rec`'s iteration as conditional."""
        if rec is not None and rec.skip_mark is None:
            rec.skip_mark = -(node.start_byte + 1)
            self._marked += 1

    def _opaque(self) -> None:
        for rec in self._loops:
            rec.opaque = True

    def _unknown_call(self, node: Node, name: str) -> None:
        """Record `node` as a call of unknown effects named `name` (no definition)."""
        self.call_refs.append(len(self.refs))
        loops = tuple(r.id for r in self._loops)
        self.calls.append((Call(name, self._span(node)), loops))

    def _unreadable(self, node: Node) -> bool:
        """A statement the parse misreads: the real text is hidden from it.

        A statement the parser made up (zero width): `for (..)` followed by
        `#include "body.inc"` or an `#if` block ends with an empty body
        tree-sitter supplies, and the real body is that text. A declaration
        typed by a macro call or by an object-like macro that is a statement:
        `PUSH(i)` or `TICK` (used without `;`) then `b[i] = a[i];` or
        `work(i);` reads as the declaration of a local array `b` or of a
        function `work`, and neither the macro nor the statement is seen.
        `typeof` is a type.
        """
        if node.start_byte == node.end_byte:
            return True
        kind = node.child_by_field_name("type") if node.type == "declaration" else None
        if kind is not None and kind.type == "type_identifier":
            body = self.macros.objects.get(node_text(kind), "")
            return ";" in body or "=" in body
        if kind is None or kind.type != "macro_type_specifier":
            return False
        name = kind.child_by_field_name("name")
        return name is None or node_text(name) not in _TYPEOF

    def _guarded(self) -> bool:
        return bool(self._ctx) and self._ctx[-1] < 0

    def _push_ctx(self, node: Node) -> None:
        self._ctx.append(-(node.start_byte + 1))

    def _exit(self, kind: ExitKind, node: Node) -> None:
        exit_ = Exit(kind, self._span(node))
        for rec in self._loops:
            rec.exits.append(exit_)
        self.exits.append(exit_)
