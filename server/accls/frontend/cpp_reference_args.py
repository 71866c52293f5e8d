"""Arguments bound to a C++ function's `T &` parameters: `bump(c[i].v)`.

`void bump(double &x) { x += 1; }` writes the caller's place through `x`, as
`void bump(double *x)` would through `&c[i].v`. The function's summary already
reads a reference parameter as a pointer; the call then passes the place's
address: the argument is recorded as `&c[i].v` (the place updated and
escaping, its text with `&`), so the analysis maps the callee's writes back
to `c[i].v`, `a[i]` or a local the way it maps a pointer argument's. A shared
scalar passed so stays a write of that scalar. Only a free function whose
every definition of that argument count agrees on which parameters are such
references qualifies; a `const T &` only reads, and is passed as a value.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text

__all__ = ["reference_positions", "written_references"]


def written_references(fdecl: Node) -> tuple[int, frozenset[int]] | None:
    """The parameter count and the positions of non-const `T &` parameters.

    None when a parameter has a default value or the list is variadic (the
    count of a call would not say which declaration it runs).
    """
    params = fdecl.child_by_field_name("parameters")
    if params is None:
        return None
    count = 0
    found: set[int] = set()
    for param in params.named_children:
        if param.type == "comment":
            continue
        if param.type != "parameter_declaration":
            return None  # a default value, `...`, a pack
        declarator = param.child_by_field_name("declarator")
        const = any(
            c.type == "type_qualifier" and node_text(c) == "const"
            for c in param.children
        )
        if (
            declarator is not None
            and declarator.type == "reference_declarator"
            and node_text(declarator).lstrip().startswith("&")
            and not node_text(declarator).lstrip().startswith("&&")
            and not const
        ):
            found.add(count)
        count += 1
    if count == 1 and params.named_children and _void(params.named_children[0]):
        count = 0
    return count, frozenset(found)


def reference_positions(
    declared: set[tuple[int, frozenset[int]]], count: int
) -> frozenset[int]:
    """The `T &` positions a call of `count` arguments binds, if all agree."""
    found = {refs for n, refs in declared if n == count}
    return next(iter(found)) if len(found) == 1 else frozenset()


def _void(param: Node) -> bool:
    return param.child_by_field_name("declarator") is None and (
        node_text(param).strip() == "void"
    )
