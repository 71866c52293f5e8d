"""A class template's methods typed from an instance: `Field<double> f; f[i]`.

`T &operator[](std::size_t)` of `template <typename T> struct Field` returns a
`double &` on a `Field<double>`: the caller's object names the arguments, so
the operators applied to the result (`f[i] = 2.0 * g[i]`) are the language's
own. Only type parameters are bound, and only to arguments whose type is known
where the call is (a template parameter of the caller stays unknown); a return
type naming anything else is classified as written.
"""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from accls.frontend.cpp_accessor_places import Accessor
from accls.frontend.cpp_types import ClassInfo, CxxScope, CxxType, TypeKind, classify
from accls.frontend.exprs import node_text

__all__ = ["class_template_params", "instance_scalar", "instance_scope"]

_TYPE_PARAMS = ("type_parameter_declaration", "optional_type_parameter_declaration")


def class_template_params(node: Node) -> tuple[str, ...]:
    """The parameters of the template declaring the class `node`, "" if not a type."""
    template = node.parent
    if template is None or template.type != "template_declaration":
        return ()
    plist = template.child_by_field_name("parameters")
    names: list[str] = []
    for param in plist.named_children if plist is not None else ():
        named = [c for c in param.named_children if c.type == "type_identifier"]
        typed = param.type in _TYPE_PARAMS and named
        names.append(node_text(named[0]) if typed else "")
    return tuple(names)


def instance_scope(info: ClassInfo, args: tuple[str, ...], scope: CxxScope) -> CxxScope:
    """`scope` with the class template's type parameters bound to `args`, if known.

    A class the file specialises keeps its parameters unknown: which definition's
    methods an instance has is not read here.
    """
    if info.specialised:
        return scope
    bound = {
        param: arg
        for param, arg in zip(info.template_params, args, strict=False)
        if param and arg != param and classify(arg, scope).kind is not TypeKind.UNKNOWN
    }
    if not bound:
        return scope
    return replace(
        scope,
        template_params=scope.template_params - bound.keys(),
        aliases={**scope.aliases, **bound},
    )


def instance_scalar(
    info: ClassInfo, accessor: Accessor, owner: CxxType, scope: CxxScope
) -> bool:
    """Whether the place `accessor` reaches is a scalar on the instance `owner`."""
    if not accessor.element_param:
        return True
    bound = classify(accessor.element_param, instance_scope(info, owner.args, scope))
    return bound.builtin and not bound.pointer
