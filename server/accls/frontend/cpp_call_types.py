"""The types of calls of the program's own methods, operators and lambdas.

`g(i, j)` of a `Grid2D g` whose `double &operator()(int, int)` the file defines
is a `double`, as is `s[i]` of a `Span s` with `double &operator[](size_t)`: the
operators applied to the result (`=`, `*`) are then the language's own, not
calls of unknown functions. A class or operator the file does not define, or one
declared with a template parameter's type, stays unknown. A lambda's result is
the type of its `return` expressions, its parameters typed as declared
(`[=](double v) { return a * v + b; }` gives a `double`). `d * s` of a `Vec3 d`
is what its member `Vec3 operator*(double) const` returns.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from accls.frontend.cpp_class_templates import instance_scope
from accls.frontend.cpp_returns import method_return
from accls.frontend.cpp_types import (
    UNKNOWN,
    ClassInfo,
    CxxScope,
    CxxType,
    TypeKind,
    classify,
    declarator_type,
    declared_name,
)
from accls.frontend.exprs import node_text

__all__ = ["binary_type", "lambda_result", "method_type", "operator_type"]


def method_type(
    info: ClassInfo,
    name: str,
    count: int,
    scope: CxxScope,
    args: tuple[str, ...] = (),
) -> CxxType:
    """The type of a call of the method `name` with `count` arguments.

    `args` are the template arguments of the object's class, if it is an
    instance of a class template: its methods' types are the instance's.
    """
    scope = instance_scope(info, args, scope)
    found = method_return(info, name, count, scope)
    return found or classify(info.methods.get(name, ""), scope)


def operator_type(scope: CxxScope, owner: CxxType, op: str, count: int) -> CxxType:
    """The type of `obj[i]` or `obj(args)` (`op` is `[]` or `()`) on `owner`."""
    if owner.kind is not TypeKind.CLASS or owner.pointer:
        return UNKNOWN
    info = scope.classes.get(owner.name.rsplit("::", 1)[-1])
    name = f"operator{op}"
    if info is None or name not in info.methods:
        return UNKNOWN
    return method_type(info, name, count, scope, owner.args)


def binary_type(scope: CxxScope, left: CxxType, op: str) -> CxxType:
    """The type of `a OP b` by the member `operatorOP` of `a`'s class.

    Unknown when the file also defines a free `operatorOP`: overload resolution
    may pick it, and its type is not looked at here.
    """
    if f"operator{op}" in scope.operators:
        return UNKNOWN
    return operator_type(scope, left, op, 1)


def lambda_result(
    lam: Node,
    scope: CxxScope,
    env: dict[str, CxxType],
    type_of: Callable[[Node], CxxType],
) -> CxxType:
    """A lambda's result type: declared, or that of its `return` expressions.

    The returns are typed by `type_of` with the lambda's parameters in `env`
    (bound while they are typed, the names they hide restored after).
    """
    declarator = next(
        (c for c in lam.named_children if c.type == "abstract_function_declarator"),
        None,
    )
    declared = declarator.child_by_field_name("declarator") if declarator else None
    if declared is not None and declared.type == "trailing_return_type":
        return classify(node_text(declared).removeprefix("->"), scope)
    params = _parameter_types(declarator, scope)
    hidden = {name: env[name] for name in params if name in env}
    env.update(params)
    try:
        found = _return_types(lam, type_of)
    finally:
        for name in params:
            env.pop(name, None)
        env.update(hidden)
    return found[0] if found and all(t.builtin for t in found) else UNKNOWN


def _parameter_types(declarator: Node | None, scope: CxxScope) -> dict[str, CxxType]:
    """The declared types of a lambda's parameters (`auto` ones are unknown)."""
    params = declarator.child_by_field_name("parameters") if declarator else None
    found: dict[str, CxxType] = {}
    for param in params.named_children if params is not None else ():
        pdecl = param.child_by_field_name("declarator")
        target = declared_name(pdecl)
        if param.type != "parameter_declaration" or target is None:
            continue
        text = declarator_type(param.child_by_field_name("type"), pdecl)
        found[node_text(target)] = classify(text, scope)
    return found


def _return_types(lam: Node, type_of: Callable[[Node], CxxType]) -> list[CxxType]:
    """The types of the `return` expressions of a lambda (not of lambdas inside)."""
    body = lam.child_by_field_name("body")
    found: list[CxxType] = []
    stack = [body] if body is not None else []
    while stack:
        cur = stack.pop()
        if cur.type == "lambda_expression":
            continue
        if cur.type == "return_statement":
            found.extend(type_of(c) for c in cur.named_children)
            continue
        stack.extend(cur.named_children)
    return found
