"""Declarations to Var values, including declarations written through macros."""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from accls.frontend.allocation_counts import allocation_count
from accls.frontend.allocator_calls import DEVICE_ALLOCATORS, allocator
from accls.frontend.exprs import node_text, span_of
from accls.frontend.macros import MacroTable
from accls.frontend.model import Var
from accls.frontend.tsparser import parse_snippet

__all__ = [
    "body_locals",
    "call_arity",
    "constructed_var",
    "declared_vars",
    "field_vars",
    "holds_anonymous_union",
    "is_static",
    "type_text",
    "typedef_vars",
]

_RESTRICT = frozenset({"restrict", "__restrict", "__restrict__"})
_NAMES = frozenset({"identifier"})
_TAGGED = frozenset({"struct_specifier", "union_specifier", "enum_specifier"})
_DROP_WORDS = frozenset(
    {"const", "volatile", "static", "extern", "register", "inline", "auto"}
)


def _base_type(node: Node) -> str:
    type_node = node.child_by_field_name("type")
    if type_node is None:
        return "int"
    return type_text(type_node)


def type_text(type_node: Node) -> str:
    """The base type a type specifier names, as declarations' `Var.type` holds it.

    `struct S {...}` is `struct S`; a struct without a tag is its whole text.
    """
    name = type_node.child_by_field_name("name")
    if type_node.type in _TAGGED and name is not None:
        keyword = type_node.type.split("_")[0]
        return f"{keyword} {node_text(name)}"  # `struct S {...} s` is a `struct S`
    words = [w for w in node_text(type_node).split() if w not in _DROP_WORDS]
    return " ".join(words) or "int"


def is_static(node: Node) -> bool:
    """True when a declaration or definition has `static` storage."""
    return any(
        child.type == "storage_class_specifier" and node_text(child) == "static"
        for child in node.children
    )


def _is_const(node: Node) -> bool:
    return _has_qualifier(node, "const")


def _has_qualifier(node: Node, word: str) -> bool:
    return any(
        child.type == "type_qualifier" and node_text(child) == word
        for child in node.children
    )


def _has_volatile(node: Node, declarator: Node) -> bool:
    """True when the declaration's specifiers or its declarator's levels say `volatile`.

    It does not look into an initializer or an array extent.
    """
    if any(
        child.type == "type_qualifier" and node_text(child) == "volatile"
        for child in node.children
    ):
        return True
    current: Node | None = declarator
    while current is not None:
        if any(
            c.type == "type_qualifier" and node_text(c) == "volatile"
            for c in current.children
        ):
            return True
        current = current.child_by_field_name("declarator")
    return False


def _is_prototype(params: Node) -> bool:
    """True when a parameter list declares parameters (`int i`, `void`, `...`).

    An unknown declaration macro such as `POLYBENCH_2D(A, N, M, n, m)` parses as a
    list of bare type names; a real prototype names a type that is not a lone
    identifier, or gives a parameter a declarator.
    """
    for param in params.named_children:
        if param.type == "variadic_parameter":
            return True
        if param.type != "parameter_declaration":
            continue
        kind = param.child_by_field_name("type")
        if param.child_by_field_name("declarator") is not None:
            return True
        if kind is not None and kind.type != "type_identifier":
            return True
    return False


def _macro_var(
    decl: Node, base: str, scope: str, macros: MacroTable, depth: int
) -> Var | None:
    """A variable declared through a function-like macro such as ARRAY_2D(A, N, M)."""
    inner = decl.child_by_field_name("declarator")
    params = decl.child_by_field_name("parameters")
    if inner is None or params is None or inner.type != "identifier":
        return None
    macro = macros.functions.get(node_text(inner))
    if (macro is None or depth >= 4) and _is_prototype(params):
        return None  # `void g(int i);` declares a function, not an array `i`
    args = [node_text(p) for p in params.named_children]
    if macro is not None and depth < 4:
        expanded = macro.expand(args)
        if expanded is not None:
            root = parse_snippet(f"{base} {expanded};")
            found = root.named_children[0] if root.named_child_count else None
            if (
                found is not None
                and found.type == "declaration"
                and not found.has_error
            ):
                vars_ = declared_vars(found, scope, macros, depth + 1)
                if vars_:
                    first = vars_[0]
                    return Var(
                        name=first.name,
                        type=base,
                        pointers=first.pointers,
                        dims=first.dims,
                        restrict=first.restrict,
                        scope=scope,
                        span=span_of(decl),
                    )
    if _is_prototype(params):
        return None  # `void g(int i);` declares a function, not an array `i`
    name = args[0].split()[-1] if args else None
    if not name or not name.replace("_", "a").isalnum():
        return None
    dims: tuple[str | None, ...] = tuple(args[1:3]) if len(args) >= 3 else ()
    return Var(
        name=name,
        type=base,
        dims=dims,
        scope=scope,
        span=span_of(decl),
        unknown_shape=True,
    )


def _unwrap(
    decl: Node,
    base: str,
    scope: str,
    const: bool,
    macros: MacroTable,
    depth: int,
    names: frozenset[str] = _NAMES,
) -> Var | None:
    pointers = 0
    restrict = False
    dims: list[str | None] = []
    order: list[str] = []  # "*" and "[" from the outside in
    node: Node | None = decl
    while node is not None:
        kind = node.type
        if kind in names:
            return Var(
                name=node_text(node),
                type=base,
                pointers=pointers,
                dims=tuple(reversed(dims)),
                restrict=restrict,
                const=const,
                scope=scope,
                span=span_of(node),
                levels="".join(reversed(order)).replace("r", "*"),
                restrict_rows="r" in "".join(reversed(order))[1:],
            )
        if kind == "init_declarator":
            node = node.child_by_field_name("declarator")
        elif kind == "pointer_declarator":
            pointers += 1
            qualified = any(
                c.type in ("type_qualifier", "ms_pointer_modifier")
                and node_text(c) in _RESTRICT
                for c in node.children
            )  # C++ reads `__restrict` as an MS pointer modifier
            order.append("r" if qualified else "*")
            restrict = restrict or qualified
            node = node.child_by_field_name("declarator")
        elif kind == "array_declarator":
            size = node.child_by_field_name("size")
            dims.append(node_text(size) if size is not None else None)
            order.append("[")
            restrict = restrict or any(
                c.type == "type_qualifier" and node_text(c) in _RESTRICT
                for c in node.children
            )
            node = node.child_by_field_name("declarator")
        elif kind in ("parenthesized_declarator", "reference_declarator"):
            # C++'s `T &x`: the front end for C++ reads what the reference means.
            node = node.named_children[0] if node.named_child_count else None
        elif kind == "function_declarator":
            if pointers or dims:
                return None  # a function pointer: not data
            return _macro_var(node, base, scope, macros, depth)
        else:
            return None
    return None


def declared_vars(
    node: Node, scope: str, macros: MacroTable, depth: int = 0
) -> tuple[Var, ...]:
    """The variables a declaration or parameter declaration introduces."""
    base = _base_type(node)
    const = _is_const(node)
    out: list[Var] = []
    for child in node.children_by_field_name("declarator"):
        var = _unwrap(child, base, scope, const, macros, depth)
        if var is None:
            continue
        source = (
            allocator(child.child_by_field_name("value"))
            if child.type == "init_declarator" and var.pointers
            else None
        )
        if source is not None:
            count = allocation_count(child.child_by_field_name("value"), var)
            var = replace(
                var, fresh=True, device=source in DEVICE_ALLOCATORS, alloc_count=count
            )
        if is_static(node):
            var = replace(var, static=True)
        if not var.pointers and _has_qualifier(node, "constexpr"):
            var = replace(var, const=True)  # a compile-time value: never written
        if _has_volatile(node, child):
            var = replace(var, volatile=True)
        out.append(var)
    return tuple(out)


_FIELD_NAMES = frozenset({"field_identifier"})
_TYPE_NAMES = frozenset({"type_identifier", "primitive_type"})
_BITS = "bitfield_clause"  # follows a field's declarator: `unsigned lo : 4`


def field_vars(
    body: Node, macros: MacroTable, route: tuple[str, ...] = ()
) -> tuple[Var, ...]:
    """The fields a struct body declares, as Vars of scope "field".

    `route`: the anonymous members `body` lies in (see `Var.route`).
    """
    out: list[Var] = []
    for position, decl in enumerate(body.named_children):
        if decl.type != "field_declaration":
            continue
        inner = _anonymous_member(decl)
        if inner is not None:
            # C11: the members of an anonymous struct or union are the outer's.
            type_node = decl.child_by_field_name("type")
            kind = (
                "u"
                if type_node is not None and type_node.type == "union_specifier"
                else "s"
            )
            out.extend(field_vars(inner, macros, (*route, f"{position}{kind}")))
            continue
        base = _base_type(decl)
        for child in decl.children_by_field_name("declarator"):
            var = _unwrap(child, base, "field", False, macros, 0, _FIELD_NAMES)
            if var is not None:
                bits = getattr(child.next_named_sibling, "type", "") == _BITS
                volatile = _has_volatile(decl, child)
                out.append(replace(var, volatile=volatile, route=route, bitfield=bits))
    return tuple(out)


def _anonymous_member(decl: Node) -> Node | None:
    """The body of `union { ... };` (or struct) declared as a member without a name."""
    if decl.child_by_field_name("declarator") is not None:
        return None
    type_node = decl.child_by_field_name("type")
    if type_node is None or type_node.type not in (
        "struct_specifier",
        "union_specifier",
    ):
        return None
    if type_node.child_by_field_name("name") is not None:
        return None
    return type_node.child_by_field_name("body")


def holds_anonymous_union(body: Node) -> bool:
    """Whether a struct body has an anonymous union member, at any depth.

    Its members are the struct's own but share storage; the struct then counts
    as a union, so that no two of its members are taken to be apart.
    """
    for decl in body.named_children:
        inner = _anonymous_member(decl) if decl.type == "field_declaration" else None
        if inner is None:
            continue
        type_node = decl.child_by_field_name("type")
        if type_node is not None and type_node.type == "union_specifier":
            return True
        if holds_anonymous_union(inner):
            return True
    return False


def typedef_vars(node: Node, macros: MacroTable) -> tuple[Var, ...]:
    """The names a `typedef` declares, each with the levels of its declarator."""
    base = _base_type(node)
    out: list[Var] = []
    for child in node.children_by_field_name("declarator"):
        var = _unwrap(child, base, "typedef", False, macros, 0, _TYPE_NAMES)
        if var is not None:
            out.append(replace(var, volatile=_has_volatile(node, child)))
    return tuple(out)


_VARIADIC = frozenset({"...", "variadic_parameter", "variadic_parameter_declaration"})


def call_arity(plist: Node | None, this: bool) -> tuple[int, int | None]:
    """How many arguments a call of a function with the parameters `plist` passes.

    The parameters without defaults, and with them (`this` of a method counted
    in both); no bound for `...` or a parameter pack, nor without the list.
    """
    if plist is None or any(c.type in _VARIADIC for c in plist.children):
        return int(this), None
    fixed = sum(
        c.type in ("parameter_declaration", "identifier")
        and node_text(c).strip() != "void"
        for c in plist.named_children
    )
    optional = sum(
        c.type == "optional_parameter_declaration" for c in plist.named_children
    )
    low = fixed + int(this)
    return low, low + optional


def constructed_var(node: Node, name: Node, macros: MacroTable) -> Var | None:
    """The local `name` that `T name(args)` declares (C++'s vexing parse)."""
    return _unwrap(name, _base_type(node), "local", _is_const(node), macros, 0)


def body_locals(body: Node, macros: MacroTable) -> list[Var]:
    """Every variable declared anywhere inside `body` (nested blocks too)."""
    out: list[Var] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "declaration":
            out.extend(declared_vars(node, "local", macros))
        stack.extend(node.named_children)
    return out
