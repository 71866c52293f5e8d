"""C++ range-based `for`: an index loop over the range's elements.

`for (double &x : v)` over a `std::vector`, `std::array`, `std::span` or a C
array is `for (index = 0; index < v.size(); ++index)` with each use of `x` a use
of `v[index]`, so the analysis reads it as it reads the index loop. The index is
a name of its own (`__range_x`): `x` is an element's value, and `a[x]` indexes
by it (a scatter), not by the iteration. A range whose iterators are not random
access (`std::list`, `std::map`) calls its `begin`, which refuses the loop.
"""

from __future__ import annotations

import re
from dataclasses import replace

from tree_sitter import Node

from accls.frontend.cpp_decls import CppDeclarations, is_reference
from accls.frontend.cpp_iterator_loops import iterator_loop
from accls.frontend.cpp_methods import cpp_expression
from accls.frontend.cpp_types import (
    OWNING_CONTAINERS,
    UNKNOWN,
    CxxType,
    TypeKind,
    classify,
    declarator_type,
    declared_name,
)
from accls.frontend.exprs import identifiers, node_text, span_of, strip_parens
from accls.frontend.loop_model import RangeFor
from accls.frontend.model import AccessKind, Region, Subscript, Var
from accls.frontend.poly import Poly

__all__ = ["INDEX_PREFIX", "CppRanges"]

INDEX_PREFIX = "__range_"
"""The index of `for (T x : v)` is `__range_x`: no name of the program."""

_MAX_LOOP_DEPTH = 64
_PATH = re.compile(r"[A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*")
_RANDOM_ACCESS = frozenset({"std::vector", "std::array", "std::span", "std::valarray"})
_INT_CAST = re.compile(r"\b([A-Za-z_]\w*)\s*\(\s*(\d+)\s*\)")


class CppRanges(CppDeclarations):
    """The C++ walk's range-based `for` loops."""

    def range_for(self, node: Node, depth: int) -> None:
        """`for (T x : range) body`: a loop record whose index runs over the range."""
        init = node.child_by_field_name("initializer")
        right = node.child_by_field_name("right")
        body = node.child_by_field_name("body")
        declarator = node.child_by_field_name("declarator")
        target = declared_name(declarator)
        if init is not None:
            for child in init.named_children:
                self.statement(child, depth + 1)
        if right is not None:
            self.expr(right, depth + 1)
        if target is None or right is None or len(self._loops) >= _MAX_LOOP_DEPTH:
            self._range_while(node, declarator, right, body, depth)
            return
        # Nested loops may reuse the name: `for (x : a) for (x : b)`.
        depth_tag = f"_{len(self._loops)}" if self._loops else ""
        index = INDEX_PREFIX + node_text(target) + depth_tag
        rec = self._loop_record(node)
        rec.range_var = index
        rec.range_for = self._range_form(node, right, declarator, index)
        (self._loops[-1].children if self._loops else self.nests).append(rec)
        self._loops.append(rec)
        self._breakable.append(rec)
        self._continuable.append(rec)
        self._ctx.append(rec.id)
        pushed = [Region(directive=p, span=span_of(node)) for p in rec.pragmas]
        self._regions.extend(pushed)
        self.range_variable(node, declarator, right, index)
        if body is not None:
            self.statement(body, depth + 1)
        self._close_loop(rec, pushed)

    def iterator_for(self, node: Node, depth: int) -> bool:
        """`for (auto it = v.begin(); it != v.end(); ++it)` read as `for (x : v)`.

        False (nothing walked) unless the iterator is used only as `*it` and `v`
        is a random-access container of builtin elements: the C walk reads it.
        """
        found = iterator_loop(node)
        if found is None or len(self._loops) >= _MAX_LOOP_DEPTH:
            return False
        kind = self.type_of(found.range)
        element = classify(kind.element, self.scope) if kind.element else UNKNOWN
        name = "".join(node_text(strip_parens(found.range)).split())
        if (
            kind.kind is not TypeKind.CONTAINER
            or kind.name not in _RANDOM_ACCESS
            or not element.builtin
            or element.pointer
            or not _PATH.fullmatch(name)
        ):
            return False
        self.expr(found.range, depth + 1)
        depth_tag = f"_{len(self._loops)}" if self._loops else ""
        index = INDEX_PREFIX + found.name + depth_tag
        rec = self._loop_record(node)
        rec.range_var = index
        rec.range_for = RangeFor(
            range=name, element=f"*{found.name}", size=f"{name}.size()", rewrite=""
        )
        (self._loops[-1].children if self._loops else self.nests).append(rec)
        self._loops.append(rec)
        self._breakable.append(rec)
        self._continuable.append(rec)
        self._ctx.append(rec.id)
        pushed = [Region(directive=p, span=span_of(node)) for p in rec.pragmas]
        self._regions.extend(pushed)
        # `*it` is the element `v[index]` (see cpp_walker's dereferences).
        self.elements[found.name] = (name, index)
        self.iterators.add(found.name)
        self.env[found.name] = CxxType(
            TypeKind.BUILTIN, element=kind.element, pointer=True
        )
        body = node.child_by_field_name("body")
        if body is not None:
            self.statement(body, depth + 1)
        self.iterators.discard(found.name)
        self.elements.pop(found.name, None)
        self.env.pop(found.name, None)
        self._close_loop(rec, pushed)
        return True

    def _range_while(
        self,
        node: Node,
        declarator: Node | None,
        right: Node | None,
        body: Node | None,
        depth: int,
    ) -> None:
        """A range-for not read as a loop: walked like a `while`, elements unknown."""
        self.range_variable(node, declarator, right, "")
        self._push_ctx(node)
        self.cyclic.add(self._ctx[-1])
        self._breakable.append(None)
        self._continuable.append(None)
        if body is not None:
            self.statement(body, depth + 1)
        self._continuable.pop()
        self._breakable.pop()
        self._ctx.pop()

    def _range_form(
        self, node: Node, right: Node, declarator: Node | None, index: str
    ) -> RangeFor:
        """The range, its element count, and the index loop it stands for."""
        name = "".join(node_text(strip_parens(right)).split())
        kind = self.type_of(right)
        size = ""
        if kind.kind is TypeKind.CONTAINER and kind.name in _RANDOM_ACCESS:
            size = f"{name}.size()"
        elif kind.pointer:
            size = self._extent(name)
        rewrite = ""
        if size and _PATH.fullmatch(name) and declarator is not None:
            body = node.child_by_field_name("body")
            used = identifiers(body) if body is not None else frozenset()
            i = next(
                (c for c in ("i", "k", "idx", "ii") if c not in used and c != name),
                "",
            )
            base = node.child_by_field_name("type")
            # `const int &x` keeps its `const`: no `int &` binds a const element.
            quals = [node_text(c) for c in node.children if c.type == "type_qualifier"]
            typed = f"{node_text(base) if base else 'auto'} {node_text(declarator)}"
            decl = " ".join(" ".join((*quals, typed)).split())
            count = "std::size_t" if size.endswith(".size()") else "int"
            if i:
                rewrite = (
                    f"for ({count} {i} = 0; {i} < {size}; ++{i}) "
                    f"{{ {decl} = {name}[{i}]; ... }}"
                )
        element = declared_name(declarator)
        declared = declarator_type(node.child_by_field_name("type"), declarator)
        if "auto" in declared.split():
            declared = kind.element
        words = declared.replace("&", " ").split()
        return RangeFor(
            range=name,
            element=node_text(element) if element is not None else "",
            size=size,
            rewrite=rewrite,
            type=" ".join(w for w in words if w not in ("const", "volatile")),
        )

    def _extent(self, name: str) -> str:
        """The first extent of a local or global C array, as written; "" unknown."""
        found = next((v for v in reversed(self.decls) if v.name == name), None)
        if found is None or not found.dims:
            return ""
        return found.dims[0] or ""

    def range_variable(
        self, node: Node, declarator: Node | None, right: Node | None, index: str
    ) -> None:
        """The variable of `for (T x : range)`: an element of the range, or a copy.

        A builtin element, by reference or by value, is `range[index]` at each
        use: a copy that is written is a private copy, and reading it as the
        element makes the loop look like it writes more, never less.
        """
        target = declared_name(declarator)
        if target is None or right is None:
            return
        name = node_text(target)
        range_type = self.type_of(right)
        range_name = "".join(node_text(strip_parens(right)).split())
        if not (range_type.kind is TypeKind.CONTAINER or range_type.pointer):
            owner = range_type.name or "auto"
            self._record_call(node, f"{owner}::begin", (right,))
        base = node.child_by_field_name("type")
        element = (
            classify(range_type.element, self.scope) if range_type.element else UNKNOWN
        )
        text = declarator_type(base, declarator)
        declared = element if "auto" in text else classify(text, self.scope)
        reference = is_reference(declarator)
        # Set at the start of each iteration, not in the header: no induction.
        start = node.child_by_field_name("body") or target
        if index and range_name in self.rows:
            # An element of a row `for (auto &row : m) for (double &x : row)`.
            outer, subs = self.rows[range_name]
            owning = element.name in OWNING_CONTAINERS
            rows = element.kind is TypeKind.CONTAINER and owning
            if (element.builtin and not element.pointer) or (rows and reference):
                self.rows[name] = (outer, (*subs, _index(index)))
                self.env[name] = element
                return
        if (
            index
            and reference
            and range_type.kind is TypeKind.CONTAINER
            and element.kind is TypeKind.CONTAINER
            and element.name in OWNING_CONTAINERS
        ):
            # A row of a container of containers: an object of its own, `m[index]`.
            self.rows[name] = (range_name, (_index(index),))
            self.env[name] = element
            return
        if element.builtin and not element.pointer and (reference or declared.builtin):
            self.elements[name] = (range_name, index)
            self.env[name] = element
            return
        if reference:
            # A row of the range: a pointer into it, from where the walk cannot tell.
            self.env[name] = element
            row = Var(name=name, type=element.element or "int", pointers=1)
            self.decls.append(replace(row, sources=("()",)))
            self._ref(start, name, AccessKind.WRITE)
            return
        if index:
            # A copy of the element: it reads the element, then is a local.
            self._ref(start, range_name, AccessKind.READ, subscripts=(_index(index),))
            self._copy_call(declarator, declared)
        self.env[name] = declared
        self.decls.append(Var(name=name, type=node_text(base) if base else "auto"))
        self._ref(start, name, AccessKind.WRITE)

    def _copy_call(self, declarator: Node | None, kind: CxxType) -> None:
        """A class copied by a constructor this file does not show is a call."""
        if declarator is None:
            return
        plain = kind.name.rsplit("::", 1)[-1]
        info = self.scope.classes.get(plain)
        copies = info is None or plain in info.methods
        if kind.kind is TypeKind.CLASS and (copies or not self.trivially_copied(kind)):
            self._record_call(declarator, f"{kind.name}::{plain}", ())
        elif kind.kind is TypeKind.UNKNOWN:
            self._record_call(declarator, "auto::operator=", ())

    def _subscript(self, node: Node) -> Subscript:
        """A subscript that uses a range element's value is indirect: `a[x]`."""
        named = self.elements.keys() | self.rows.keys()
        text = " ".join(node_text(node).split())
        if named and identifiers(node) & named:
            return Subscript(text, None, True)
        plain = _INT_CAST.sub(
            lambda m: f"({m[2]})" if self._integer_cast(m[1], int(m[2])) else m[0],
            text,
        )
        parsed = cpp_expression(plain) if plain != text else None
        if parsed is not None:
            # `Index_t(8) * k` is `8 * k`: a literal's conversion reads no memory.
            return replace(super()._subscript(parsed), text=text)
        return super()._subscript(node)

    def _integer_cast(self, name: str, value: int) -> bool:
        """Whether `name(value)` is `value` in an integer type (`Index_t(8)`)."""
        if value > 32767 or self.variable_type(name) is not None:
            return False  # a narrow type (`short`) might not hold it
        if name in self.scope.returns:
            return False
        kind = classify(name, self.scope)
        if not kind.builtin or kind.pointer or name in self.scope.enums:
            return False
        resolved, seen = name, 0
        while resolved in self.scope.aliases and seen < 16:
            resolved, seen = self.scope.aliases[resolved], seen + 1
        words = set(resolved.replace("*", " ").split())
        return not {"float", "double", "bool", "char", "int8_t", "uint8_t"} & words

    def row_path(
        self, name: str, subs: tuple[Subscript, ...]
    ) -> tuple[str, tuple[Subscript, ...]]:
        """`row[j]` of `for (auto &row : m)` is `m[index][j]`."""
        if name in self.rows:
            outer, prefix = self.rows[name]
            return outer, (*prefix, *subs)
        return name, subs


def _index(index: str) -> Subscript:
    return Subscript(index, Poly.sym(index))
