"""Collect the C++ scope of a tree: its classes, aliases, enums and templates."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.cpp_class_templates import class_template_params
from accls.frontend.cpp_overloads import param_counts
from accls.frontend.cpp_reference_args import written_references
from accls.frontend.cpp_returns import record_return, record_signature
from accls.frontend.cpp_types import (
    ClassInfo,
    CxxScope,
    builtin_text,
    declarator_type,
    declared_name,
    function_declarator,
    unqualified,
)
from accls.frontend.decls import holds_anonymous_union
from accls.frontend.exprs import node_text

__all__ = ["collect_scope"]

_BITS = "bitfield_clause"  # follows a member's declarator: `unsigned lo : 4`


def _collect_class(node: Node, scope: CxxScope) -> None:
    name_node = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    if name_node is None or body is None:
        return
    info = scope.classes.setdefault(
        unqualified(node_text(name_node)), ClassInfo(node_text(name_node))
    )
    if name_node.type == "template_type":
        info.specialised = True  # `template <> struct Field<int>`
    else:
        info.template_params = class_template_params(node)
    if node.type == "union_specifier":
        info.overlaid = True
    elif holds_anonymous_union(body):
        info.overlaid = info.holder = True
    for member in body.named_children:
        base = member.child_by_field_name("type")
        if member.type in ("field_declaration", "function_definition") and any(
            c.type == "storage_class_specifier" and node_text(c) == "static"
            for c in member.children
        ):
            target = declared_name(function_declarator(member)[0])
            if target is not None:
                info.statics.add(node_text(target))
            if member.type == "field_declaration":
                _static_data(member, info)
        if member.type == "field_declaration":
            for decl in member.children_by_field_name("declarator"):
                if decl.type == "function_declarator":
                    target = declared_name(decl.child_by_field_name("declarator"))
                    if target is not None:
                        info.methods[node_text(target)] = (
                            node_text(base) if base else ""
                        )
                        counts = param_counts(decl)
                        record_signature(info, node_text(target), counts, member)
                    continue
                target = declared_name(decl)
                if target is not None:
                    info.fields[node_text(target)] = declarator_type(base, decl)
                    if decl.type == "reference_declarator":
                        info.references.add(node_text(target))
                    if getattr(decl.next_named_sibling, "type", "") == _BITS:
                        info.bitfields.add(node_text(target))
        elif member.type == "function_definition":
            fdecl, _ = function_declarator(member)
            target = (
                declared_name(fdecl.child_by_field_name("declarator"))
                if fdecl
                else None
            )
            if target is not None and not _defaulted_destructor(member, target):
                info.methods[node_text(target)] = node_text(base) if base else ""
                counts = param_counts(fdecl)
                record_signature(info, node_text(target), counts, member)
        elif member.type == "declaration":
            _declared_destructor(member, info)
        _constructor(member, info, unqualified(node_text(name_node)))
        _virtual_member(member, info)
        info.conversions.update(
            "operator " + " ".join(node_text(t).split())
            for c in member.children
            if c.type == "operator_cast"
            for t in (c.child_by_field_name("type"),)
            if t is not None
        )
    for clause in (c for c in node.named_children if c.type == "base_class_clause"):
        info.template_bases = info.template_bases or "<" in node_text(clause)
        info.bases.extend(
            unqualified(node_text(b).split("<", 1)[0])
            for b in clause.named_children
            if b.type != "access_specifier"
        )
    if any(c.type == "base_class_clause" for c in node.named_children) or not all(
        builtin_text(t) for t in info.fields.values()
    ):
        info.plain_constructors = False  # a base's or a member's constructor runs


def _defaulted_destructor(member: Node, target: Node) -> bool:
    """`~E() = default;`: it runs only the members' and bases' destructors.

    Those are found from the class itself (cpp_destructors); `= delete` runs none.
    """
    return target.type == "destructor_name" and any(
        c.type in ("default_method_clause", "delete_method_clause")
        for c in member.children
    )


def _declared_destructor(member: Node, info: ClassInfo) -> None:
    """`~E();` declared in the class and defined elsewhere: a user destructor.

    Its body may be in this file (`E::~E() {..}`) or another; either way each
    object that dies runs it.
    """
    for decl in member.children_by_field_name("declarator"):
        target = declared_name(decl) if decl.type == "function_declarator" else None
        if target is not None and target.type == "destructor_name":
            info.methods.setdefault(node_text(target), "")


def _static_data(member: Node, info: ClassInfo) -> None:
    """Sort a static data member declaration's names: read-only or writable.

    `static constexpr long value = 1;` and `static const int n = 4;` hold a value
    nothing writes; `static const double *p;` is a writable pointer (to const).
    """
    qualifiers = {node_text(c) for c in member.children if c.type == "type_qualifier"}
    read_only = bool(qualifiers & {"const", "constexpr"}) and "mutable" not in (
        node_text(c) for c in member.children
    )
    for decl in member.children_by_field_name("declarator"):
        if decl.type == "function_declarator":
            continue
        target = declared_name(decl)
        if target is None:
            continue
        plain = decl.type in ("field_identifier", "identifier")
        (info.constants if read_only and plain else info.varying).add(node_text(target))


def _virtual_member(member: Node, info: ClassInfo) -> None:
    """Record a method declared `virtual`, `override` or `final` in `info`."""
    if member.type not in ("function_definition", "field_declaration"):
        return
    fdecl, _ = function_declarator(member)
    target = declared_name(fdecl.child_by_field_name("declarator")) if fdecl else None
    if fdecl is None or target is None:
        return
    if any(node_text(c) == "virtual" for c in member.children) or any(
        c.type == "virtual_specifier" for c in fdecl.children
    ):
        info.virtuals.add(node_text(target))


def _constructor(member: Node, info: ClassInfo, plain: str) -> None:
    """Count a constructor among the class's members (see ClassInfo)."""
    if member.type not in ("function_definition", "field_declaration", "declaration"):
        return
    fdecl, _ = function_declarator(member)
    target = declared_name(fdecl.child_by_field_name("declarator")) if fdecl else None
    if fdecl is None or target is None or node_text(target) != plain:
        return
    info.constructors += 1
    params = fdecl.child_by_field_name("parameters")
    required = [
        p
        for p in (params.named_children if params is not None else ())
        if p.type in ("parameter_declaration", "variadic_parameter_declaration")
        and node_text(p) != "void"
    ]
    info.default_constructor = info.default_constructor or not required
    body = member.child_by_field_name("body")
    defaulted = any(c.type == "default_method_clause" for c in member.named_children)
    if defaulted:
        return
    if member.type != "function_definition" or body is None or body.named_child_count:
        info.plain_constructors = False  # defined elsewhere, or a body of statements
        return
    inits = next(
        (c for c in member.named_children if c.type == "field_initializer_list"), None
    )
    stack = [inits] if inits is not None else []
    while stack:
        cur = stack.pop()
        if cur.type in ("call_expression", "new_expression", "lambda_expression") or (
            cur.type in ("assignment_expression", "update_expression")
        ):
            info.plain_constructors = False
            return
        stack.extend(cur.named_children)


def collect_scope(root: Node) -> CxxScope:
    """The classes, aliases, enums and template parameters declared in a tree."""
    scope = CxxScope()
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("class_specifier", "struct_specifier", "union_specifier"):
            _collect_class(node, scope)
        elif kind == "enum_specifier":
            name = node.child_by_field_name("name")
            if name is not None:
                scope.enums.add(unqualified(node_text(name)))
            body = node.child_by_field_name("body")
            for item in body.named_children if body is not None else ():
                item_name = item.child_by_field_name("name")
                if item_name is not None:
                    scope.enums.add(node_text(item_name))
        elif kind == "alias_declaration":
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("type")
            if name is not None and value is not None:
                scope.aliases[node_text(name)] = node_text(value)
        elif kind == "type_definition":
            base = node.child_by_field_name("type")
            for decl in node.children_by_field_name("declarator"):
                target = declared_name(decl)
                if target is not None and base is not None:
                    scope.aliases[node_text(target)] = declarator_type(base, decl)
        elif kind in (
            "type_parameter_declaration",
            "optional_type_parameter_declaration",
        ):
            for child in node.named_children:
                if child.type == "type_identifier":
                    scope.template_params.add(node_text(child))
        elif kind == "using_declaration" and "namespace std" in node_text(node):
            scope.using_std = True
        elif kind == "using_declaration":
            used = "".join(node_text(node).split()).removeprefix("using")
            if used.startswith(("std::", "::std::")) and used.count("::") <= 2:
                scope.using_names.add(used.rstrip(";").rsplit("::", 1)[-1])
        elif kind == "function_definition":
            fdecl, _ = function_declarator(node)
            target = fdecl.child_by_field_name("declarator") if fdecl else None
            base = node.child_by_field_name("type")
            if target is not None:
                text = node_text(target)
                record_return(
                    scope, text, node, node_text(base) if base is not None else ""
                )
                member = node.parent is not None and node.parent.type in (
                    "field_declaration_list",
                    "template_declaration",
                )
                free = target.type == "operator_name" and not member
                written = written_references(fdecl) if fdecl else None
                if written is not None and not member:
                    scope.reference_params.setdefault(text, set()).add(written)
                if free:
                    scope.operators.add(text.replace(" ", ""))
        stack.extend(node.named_children)
    return scope
