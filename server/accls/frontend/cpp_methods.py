"""Accessor methods: a member function whose body is `return m;` or `return m[e];`.

`domain.fx(i)` with `Real_t& fx(Index_t idx) { return m_fx[idx]; }` is the
element `domain.m_fx[i]`, read or written as the call is used; `d.numNode()`
with `Index_t& numNode() { return m_numNode; }` is the member `d.m_numNode`, and
`d.list(r, i)` with `return m_list[r][i];` the element `d.m_list[r][i]`. The
walk substitutes such calls so the dependence test sees the member's element.
Overloads are told apart by their number of parameters. Any other method stays
a call.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from tree_sitter import Node, Tree

from accls.frontend.cpp_accessor_places import (
    ATOMS,
    Accessor,
    accessor_place,
    simple_argument,
)
from accls.frontend.cpp_overloads import ANY_COUNT, declared_methods, method_counts
from accls.frontend.cpp_scope import collect_scope
from accls.frontend.cpp_types import (
    CxxScope,
    TypeKind,
    classify,
    declarator_type,
    declared_name,
    function_declarator,
)
from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.tsparser import parse_cpp_bytes, parse_snippet

__all__ = [
    "Accessor",
    "add_accessors",
    "cpp_expression",
    "expansion_text",
    "header_scope",
    "index_text",
    "simple_argument",
    "snippet",
    "virtual_method",
]

_WORD = re.compile(r"[A-Za-z_]\w*")
_FREE_WORD = re.compile(r"(?<!\.)(?<!->)(?<!::)(?<!\w)[A-Za-z_]\w*")
_CLASSES = frozenset({"class_specifier", "struct_specifier"})
_PLAIN = frozenset(
    {
        "binary_expression", "unary_expression", "parenthesized_expression",
        "subscript_expression", "subscript_argument_list", "conditional_expression",
        "argument_list",
    }
)  # fmt: skip


def index_text(
    accessor: Accessor, args: tuple[Node, ...], prefix: str = ""
) -> tuple[str, ...] | None:
    """The accessor's subscripts, each parameter replaced by its argument.

    The members they read are named through `prefix`, the object (`g.`).
    """
    if accessor.index is None or len(args) != len(accessor.params):
        return None
    members = {name: prefix + name for name in accessor.fields}
    return tuple(
        _bound_index(index, accessor.params, args, members) for index in accessor.index
    )


def _bound_index(
    index: str,
    params: tuple[str, ...],
    args: tuple[Node, ...],
    members: dict[str, str],
) -> str:
    """One subscript's text with each parameter replaced by its argument."""
    bound: dict[str, str] = dict(members)
    alone = index in params  # `m[idx]`: the argument as it is
    for name, arg in zip(params, args, strict=True):
        text = " ".join(node_text(strip_parens(arg)).split())
        atom = alone or strip_parens(arg).type in ATOMS
        bound[name] = text if atom else f"({text})"
    return _WORD.sub(lambda m: bound.get(m.group(0), m.group(0)), index)


def snippet(text: str) -> Node | None:
    """The expression `text`, parsed alone (C's grammar), or None if it does not."""
    root = parse_snippet(f"void __accls(void) {{ ({text}); }}")
    fn = root.named_children[0] if root.named_child_count else None
    body = fn.child_by_field_name("body") if fn is not None else None
    stmt = (
        body.named_children[0] if body is not None and body.named_child_count else None
    )
    if stmt is None or stmt.type != "expression_statement" or root.has_error:
        return None
    return strip_parens(stmt.named_children[0]) if stmt.named_child_count else None


def _accessor(
    method: Node,
    fields: dict[str, str],
    scope: CxxScope,
    generic: tuple[str, ...],
    shared: frozenset[str],
) -> Accessor | None:
    """The accessor a method definition is, or None.

    `generic` and `shared`: see accessor_place.
    """
    decl, reference = function_declarator(method)
    body = method.child_by_field_name("body")
    plist = decl.child_by_field_name("parameters") if decl is not None else None
    if body is None or plist is None:
        return None
    statements = [c for c in body.named_children if c.type != "comment"]
    if len(statements) != 1 or statements[0].type != "return_statement":
        return None
    params: list[str] = []
    for param in plist.named_children:
        declarator = param.child_by_field_name("declarator")
        target = declared_name(declarator)
        text = declarator_type(param.child_by_field_name("type"), declarator)
        kind = classify(text, scope)
        if target is None or not kind.builtin or kind.pointer or "&" in text:
            return None  # only scalars passed by value
        params.append(node_text(target))
    values = statements[0].named_children
    if len(values) != 1:
        return None
    value = strip_parens(values[0])
    if set(params) & set(fields):
        return None  # a parameter that hides a member
    names = set(params) | scope.enums | set(fields)
    if _plain_expression(value, names, scope):
        plain = accessor_place(
            value, tuple(params), fields, scope, reference, generic, shared
        )
        if plain is not None:
            return plain
        used = frozenset(set(_WORD.findall(node_text(value))) & set(fields))
        kinds = [classify(fields[name], scope) for name in used]
        if not all(k.builtin or k.kind is TypeKind.CONTAINER for k in kinds):
            return None  # an object member: its operators are calls
        text = " ".join(node_text(value).split())
        return Accessor("", tuple(params), None, False, text, used)
    return None


def _plain_expression(node: Node, names: set[str], scope: CxxScope) -> bool:
    """An expression of the names, literals and operators only (no call, no store)."""
    stack = [node]
    while stack:
        cur = stack.pop()
        kind = cur.type
        if kind == "identifier":
            if node_text(cur) not in names:
                return False
        elif kind == "call_expression":
            fn = cur.child_by_field_name("function")
            args = cur.child_by_field_name("arguments")
            text = node_text(fn) if fn is not None else ""
            if fn is None or fn.type not in ("identifier", "primitive_type"):
                return False
            if text not in scope.aliases and fn.type != "primitive_type":
                return False
            if not classify(text, scope).builtin or args is None:
                return False  # only a conversion: `Index_t(8)`
            stack.extend(args.named_children)
        elif kind == "pointer_expression":
            if not node_text(cur).lstrip().startswith("&"):
                return False
            stack.extend(cur.named_children)
        elif kind == "cast_expression":
            cast = cur.child_by_field_name("type")
            value = cur.child_by_field_name("value")
            if (
                cast is None
                or value is None
                or not classify(node_text(cast), scope).builtin
            ):
                return False  # a conversion to a class may construct an object
            stack.append(value)
        elif kind in _PLAIN:
            stack.extend(cur.named_children)
        elif kind != "number_literal":
            return False
    return True


def add_accessors(root: Node, scope: CxxScope) -> None:
    """Record each class's accessor methods (defined in the class body) in `scope`."""
    stack = [root]
    defined: dict[str, bool] = {}  # class name -> its accessors may be used
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type not in _CLASSES:
            continue
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        plain = node_text(name).rsplit("::", 1)[-1] if name else ""
        info = scope.classes.get(plain)
        if info is None or body is None:
            continue
        derived = any(c.type == "base_class_clause" for c in node.children)
        if plain in defined or derived:
            # Two classes of one name, or a method a base may make virtual: which
            # body runs is not this one for sure.
            info.accessors.clear()
            defined[plain] = False
            continue
        defined[plain] = True
        # Keyed by name and number of parameters: `list(r)` and `list(r, i)` are
        # two methods, a call's argument count picks one.
        found: dict[tuple[str, int], Accessor | None] = {}
        # Methods whose body is elsewhere or may be overridden, with the argument
        # counts a call of them may pass: such a call may run an unseen body.
        unseen: list[tuple[str, range]] = []
        for member in body.named_children:
            if member.type != "function_definition" or _virtual(member):
                if member.type == "function_definition":
                    unseen.append((_method_name(member) or "", ANY_COUNT))
                elif member.type in ("field_declaration", "declaration"):
                    unseen.extend(declared_methods(member))
                continue
            target = _method_name(member)
            if target is None:
                continue
            generic = () if info.specialised else info.template_params
            one = _accessor(
                member, info.fields, scope, generic, frozenset(info.statics)
            )
            counts = method_counts(member)
            if one is None or counts != range(len(one.params), len(one.params) + 1):
                unseen.append((target, counts))  # another method of that name
                continue
            key = (target, len(one.params))
            before = found.get(key, one)
            # Overloads agree only as a const and a non-const accessor of one place.
            same = before is not None and (one.member, one.params, one.index) == (
                before.member,
                before.params,
                before.index,
            )
            found[key] = (
                None
                if not same or before is None
                else replace(one, reference=True)
                if before.reference
                else one
            )
        for key, accessor in found.items():
            hidden = any(n == key[0] and key[1] in c for n, c in unseen)
            if accessor is not None and defined[plain] and not hidden:
                info.accessors[key] = accessor


def _virtual(method: Node) -> bool:
    """Whether a method is declared `virtual` (an override may run instead)."""
    return any(node_text(c) == "virtual" for c in method.children)


def virtual_method(scope: CxxScope, cls: str, method: str) -> bool:
    """Whether a call of `cls::method` may run an override instead of that body.

    True when the class or one of its bases declares the method virtual, or
    when a base is not defined in the file (it may declare it virtual).
    """
    root = cls.rsplit("::", 1)[-1].split("<", 1)[0]
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        info = scope.classes.get(name)
        if info is None:
            return name != root  # an unseen base may declare it virtual
        if method in info.virtuals:
            return True
        todo.extend(info.bases)
    return False


def _method_name(method: Node) -> str | None:
    decl, _ = function_declarator(method)
    target = declared_name(decl.child_by_field_name("declarator")) if decl else None
    return node_text(target) if target is not None else None


@lru_cache(maxsize=8)
def header_scope(code: str) -> CxxScope:
    """The classes (with their accessors), aliases and enums of the headers' code."""
    data = code.encode("utf-8", errors="surrogateescape")
    root = parse_cpp_bytes(data).root_node
    scope = collect_scope(root)
    add_accessors(root, scope)
    return scope


def expansion_text(
    accessor: Accessor, args: tuple[Node, ...], prefix: str
) -> str | None:
    """The expression a call reads: parameters bound, members through `prefix`."""
    if accessor.expression is None or len(args) != len(accessor.params):
        return None
    bound = {
        name: f"({' '.join(node_text(arg).split())})"
        for name, arg in zip(accessor.params, args, strict=True)
    }
    bound.update((name, prefix + name) for name in accessor.fields)
    return _FREE_WORD.sub(
        lambda m: bound.get(m.group(0), m.group(0)), accessor.expression
    )


@lru_cache(maxsize=1024)
def _cpp_snippet(text: str) -> Tree:
    return parse_cpp_bytes(f"void __accls() {{ ({text}); }}".encode())


def cpp_expression(text: str) -> Node | None:
    """The C++ expression `text`, parsed alone, or None if it does not parse."""
    root = _cpp_snippet(text).root_node
    fn = root.named_children[0] if root.named_child_count else None
    body = fn.child_by_field_name("body") if fn is not None else None
    stmt = (
        body.named_children[0] if body is not None and body.named_child_count else None
    )
    if stmt is None or stmt.type != "expression_statement" or root.has_error:
        return None
    return strip_parens(stmt.named_children[0]) if stmt.named_child_count else None
