"""References of Fortran expressions: arrays (column-major), calls, intrinsics."""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from accls.frontend.exprs import span_of
from accls.frontend.fortran_decls import FDecl
from accls.frontend.fortran_exprs import INTRINSICS, flat, fortran_poly, name_of, strip
from accls.frontend.fortran_members import final_args, member_element
from accls.frontend.fortran_operations import (
    OPERATIONS,
    assignment_calls,
    operation_calls,
)
from accls.frontend.fortran_reductions import reduction_of
from accls.frontend.fortran_types import (
    Components,
    data_member,
    member_path,
    reaches_pointer,
)
from accls.frontend.model import AccessKind, Call, Exit, RedOp, Ref, Span, Subscript
from accls.frontend.poly import Poly

__all__ = ["Procedure", "RefRecorder"]

_SKIP = frozenset({"(", ")", ",", "comment", "&", "=", "%"})


@dataclass(frozen=True, slots=True)
class Procedure:
    """What a call site needs of a procedure defined in the file."""

    name: str
    dummies: tuple[str, ...]
    intents: tuple[str, ...]  # per dummy: "in", "out", "inout" or ""
    pure: bool
    arrays: tuple[bool, ...] = ()  # per dummy: declared with dimensions
    foreign: bool = False  # a module procedure of another file
    # Of another file's procedure: its module's variables, which it may read.
    reads: tuple[str, ...] = ()


@dataclass(slots=True)
class RefRecorder:
    """The reference list of one program unit, with its declarations in scope."""

    decls: dict[str, FDecl]
    procedures: dict[str, Procedure]
    # The derived types in sight: which components are pointers.
    types: Components = field(default_factory=dict)
    # Operator (or `=`) -> the procedures its interface defines it by.
    operations: dict[str, tuple[str, ...]] = field(default_factory=dict)
    refs: list[Ref] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    exits: list[Exit] = field(default_factory=list)
    ctx: list[int] = field(default_factory=list)
    loops: list[int] = field(default_factory=list)
    atomic: str = ""
    # Loop id -> the mark of a `cycle`/`exit` in it: what follows may not run.
    marks: dict[int, int] = field(default_factory=dict)

    # ----- recording ---------------------------------------------------------
    def add(
        self,
        node: Node,
        name: str,
        kind: AccessKind,
        subscripts: tuple[Subscript, ...] = (),
        *,
        reduction: RedOp | None = None,
        member: bool = False,
        escapes: bool = False,
        span: Span | None = None,
    ) -> None:
        """Record one reference in the current context."""
        self.refs.append(
            Ref(
                name=name,
                kind=kind,
                span=span or span_of(node),
                subscripts=subscripts,
                reduction=reduction,
                guarded=bool(self.ctx) and self.ctx[-1] < 0,
                loops=tuple(self.loops),
                context=self._context(),
                member=member,
                atomic=self.atomic,
                escapes=escapes,
                fortran=True,
            )
        )

    def _context(self) -> tuple[int, ...]:
        if not self.marks:
            return tuple(self.ctx)
        out: list[int] = []
        for item in self.ctx:
            out.append(item)
            if item in self.marks:
                out.append(self.marks[item])
        return tuple(out)

    def is_array(self, name: str) -> bool:
        """Whether `name` is declared with dimensions (or as a pointer array)."""
        decl = self.decls.get(name)
        return decl is not None and (decl.is_array or decl.var.pointers > 0)

    def _whole(self, name: str) -> tuple[Subscript, ...]:
        """Unknown subscripts for every dimension: the whole array."""
        decl = self.decls.get(name)
        rank = max(1, decl.var.rank) if decl is not None else 1
        return tuple(Subscript(":", None) for _ in range(rank))

    # ----- expressions -------------------------------------------------------
    def read(self, node: Node) -> None:
        """Record the reads of an expression, in evaluation order."""
        node = strip(node)
        kind = node.type
        if kind == "identifier":
            name = name_of(node)
            if self.is_array(name):
                self.add(node, name, AccessKind.READ, self._whole(name))
            else:
                self.add(node, name, AccessKind.READ)
        elif kind == "call_expression":
            self.call_expression(node, AccessKind.READ)
        elif kind == "derived_type_member_expression":
            if not self._element(node, AccessKind.READ):
                self.add(node, _member_name(node), AccessKind.READ, member=True)
        elif kind in ("number_literal", "string_literal", "boolean_literal", "comment"):
            return
        elif kind == "keyword_argument":
            if len(node.named_children) >= 2:
                self.read(node.named_children[-1])
        else:
            if kind in OPERATIONS:
                self.calls.extend(
                    operation_calls(node, self.decls, self.types, self.operations)
                )
            for child in node.named_children:
                self.read(child)

    def _element(self, node: Node, kind: AccessKind, *, escapes: bool = False) -> bool:
        """`a(x)%c`, `a(x)%v(k)`: an access of the array element `a(x)`, if it is one.

        The element stands for its member, as C's `a[x].c` does; writing a member
        writes only part of it, so a write counts as a read too (an update).
        """
        found = member_element(node)
        if found is None or not self.is_array(found[0]):
            return False
        name, args, inner = found
        for extra in inner:
            self.subscripts("", extra)  # a member's own subscripts: their reads
        subs = self.subscripts(name, args)
        written = kind is not AccessKind.READ
        path = member_path(node)
        if reaches_pointer(self.types, self.decls.get(name), path):
            # `a(x)%p(k)` with `p` a pointer: the storage is the target's, which
            # the pointers of other elements may share; no element owns it.
            last = final_args(node)
            items = last.named_children if last is not None else []
            unknown = tuple(
                Subscript(flat(c), None, True)
                for c in reversed(items)
                if c.type not in _SKIP
            )
            member = ".".join((name, *path))
            self.add(node, member, kind, unknown, member=True, escapes=escapes)
            return True
        kind = AccessKind.UPDATE if written else kind
        self.add(node, name, kind, subs, escapes=escapes)
        return True

    def subscripts(self, name: str, args: Node) -> tuple[Subscript, ...]:
        """The subscripts of `name(args)` in the model's order (last is stride-1)."""
        decl = self.decls.get(name)
        lows = decl.lows if decl is not None else ()
        items = [c for c in args.named_children if c.type not in _SKIP]
        out: list[Subscript] = []
        for pos, item in enumerate(items):
            before = len(self.refs)
            if item.type == "extent_specifier":
                for part in item.named_children:
                    self.read(part)
                out.append(Subscript(flat(item), None))
                continue
            self.read(item)
            indirect = any(r.subscripts for r in self.refs[before:])
            poly = fortran_poly(item)
            low = lows[pos] if pos < len(lows) else Poly.const(1)
            if poly is not None and low is not None:
                poly = poly - low
            out.append(Subscript(flat(item), None if indirect else poly, indirect))
        return tuple(reversed(out))

    def call_expression(self, node: Node, kind: AccessKind) -> None:
        """`a(i, j)` (an array element), `f(x)` (a call), `sqrt(x)` (an intrinsic)."""
        callee = node.named_children[0] if node.named_children else None
        args = next((c for c in node.named_children if c.type == "argument_list"), None)
        if callee is None:
            return
        if callee.type == "derived_type_member_expression":
            if not data_member(callee, self.decls, self.types):
                # `x(i)%f()`: a type-bound function (or a member of a type out
                # of sight, which may be one): a call we cannot see into.
                self.read(callee)
                self.call(node, flat(callee), args)
                return
            if self._element(node, kind):
                return
            subs = self.subscripts("", args) if args is not None else ()
            self.add(node, _member_name(callee), kind, subs, member=True)
            return
        if callee.type == "call_expression":  # `s(i)(1:3)`: a substring of an element
            # Writing a substring writes part of the element: an update.
            written = kind is AccessKind.WRITE
            self.call_expression(callee, AccessKind.UPDATE if written else kind)
            return
        if callee.type != "identifier":
            for child in node.named_children:
                self.read(child)
            return
        name = name_of(callee)
        if self.is_array(name) or (
            name in self.decls
            and name not in self.procedures
            and (self.decls[name].var.type == "char")
        ):
            subs = self.subscripts(name, args) if args is not None else ()
            if not self.is_array(name):
                subs = ()
                if kind is AccessKind.WRITE:
                    # `s(i:i) = c` writes part of `s`: the rest keeps its value.
                    kind = AccessKind.UPDATE
            self.add(node, name, kind, subs)
            return
        if name in INTRINSICS and name not in self.procedures:
            if args is not None:
                for arg in args.named_children:
                    self.read(arg)
            return
        self.call(node, name, args)

    def call(self, node: Node, name: str, args: Node | None) -> None:
        """A call of a procedure: its arguments pass by reference."""
        items = [c for c in args.named_children if c.type not in _SKIP] if args else []
        proc = self.procedures.get(name)
        if proc is None or not (proc.foreign and proc.pure):
            # A pure procedure of another module does nothing but what its
            # arguments' intents say (the standard's rule), recorded below.
            self.calls.append(Call(name, span_of(node), tuple(flat(a) for a in items)))
        else:
            # It may still read its module's variables (a pure procedure only
            # leaves them alone): reads of the whole of each, at the call.
            for read in proc.reads:
                if read in self.decls:
                    self.add(node, read, AccessKind.READ, self._whole(read))
        for pos, item in enumerate(items):
            value = item
            intent = ""
            if item.type == "keyword_argument" and item.named_children:
                value = item.named_children[-1]
                key = name_of(item.named_children[0])
                if proc is not None and key in proc.dummies:
                    intent = proc.intents[proc.dummies.index(key)]
            elif proc is not None and pos < len(proc.intents):
                intent = proc.intents[pos]
            if proc is not None and proc.pure and not intent:
                # Of another file only its declaration is known: a dummy
                # without intent (a pointer) may be written through.
                intent = "inout" if proc.foreign else "in"
            if proc is None:
                # An unknown procedure is an obstacle of its own; its arguments
                # are read here and may be kept (their address escapes).
                self.read(value)
                self._escape_last()
                continue
            dummy = (
                proc.dummies.index(name_of(item.named_children[0]))
                if item.type == "keyword_argument"
                and name_of(item.named_children[0]) in proc.dummies
                else pos
            )
            element = strip(value)
            if (
                dummy < len(proc.arrays)
                and proc.arrays[dummy]
                and element.type == "call_expression"
                and intent != "in"
            ):
                # An element passed to an array dummy starts a sequence: the
                # callee may touch any element after it (sequence association).
                callee = element.named_children[0] if element.named_children else None
                if callee is not None and callee.type == "identifier":
                    array = name_of(callee)
                    args_node = next(
                        (
                            c
                            for c in element.named_children
                            if c.type == "argument_list"
                        ),
                        None,
                    )
                    if args_node is not None:
                        self.subscripts(array, args_node)
                    self.add(element, array, AccessKind.UPDATE, self._whole(array))
                    continue
            self.argument(element, intent)

    def _escape_last(self) -> None:
        from dataclasses import replace

        if self.refs and not self.refs[-1].escapes:
            self.refs[-1] = replace(self.refs[-1], escapes=True)

    def argument(self, value: Node, intent: str) -> None:
        """An actual argument: read, written or both, as the dummy's intent says."""
        if intent == "in" or value.type not in (
            "identifier",
            "call_expression",
            "derived_type_member_expression",
        ):
            self.read(value)
            return
        kind = AccessKind.WRITE if intent == "out" else AccessKind.UPDATE
        self.write(value, kind, escapes=intent == "")

    def write(
        self,
        target: Node,
        kind: AccessKind = AccessKind.WRITE,
        *,
        reduction: RedOp | None = None,
        escapes: bool = False,
    ) -> None:
        """A write of an assignment target (its subscripts are read first)."""
        target = strip(target)
        if target.type == "identifier":
            name = name_of(target)
            subs = self._whole(name) if self.is_array(name) else ()
            self.add(target, name, kind, subs, reduction=reduction, escapes=escapes)
        elif target.type == "call_expression":
            callee = target.named_children[0] if target.named_children else None
            if (
                callee is not None
                and callee.type == "identifier"
                and not self.is_array(name_of(callee))
                and name_of(callee) not in self.decls
            ):
                self.read(target)  # a function result: nothing named is written
                return
            before = len(self.refs)
            self.call_expression(target, kind)
            if len(self.refs) > before and reduction is not None:
                last = self.refs.pop()
                self.refs.append(_with_reduction(last, reduction))
        elif target.type == "derived_type_member_expression":
            if not self._element(target, kind, escapes=escapes):
                self.add(target, _member_name(target), kind, member=True)
        else:
            self.read(target)

    # ----- assignments -------------------------------------------------------
    def assignment(self, node: Node) -> None:
        """`lhs = rhs`: the reads of the right side, then the write (or an update)."""
        parts = [c for c in node.children if c.type not in ("comment", "&")]
        if len(parts) < 3:
            return
        lhs, rhs = parts[0], parts[-1]
        found = reduction_of(lhs, rhs)
        if found is not None:
            op, rest = found
            for item in rest:
                self.read(item)
            self.write(lhs, AccessKind.UPDATE, reduction=op)
            return
        self.read(rhs)
        self.calls.extend(
            assignment_calls(node, lhs, rhs, self.decls, self.types, self.operations)
        )
        self.write(lhs)


def _member_name(node: Node) -> str:
    """`t%v` as the model's `t.v` (the base name first)."""
    return ".".join(p.strip().lower() for p in flat(node).split("%")).split("(")[0]


def _with_reduction(ref: Ref, op: RedOp) -> Ref:
    from dataclasses import replace

    return replace(ref, reduction=op)
