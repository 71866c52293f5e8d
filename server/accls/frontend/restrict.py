"""Where `restrict` goes in a function's pointer parameters, in every declaration.

`void f(double *a, const double *b)` and its prototype `void f(double *, const
double *)` become `double *restrict a` and `double *restrict`. Only a plain
one-level pointer declarator is edited; anything else (an array declarator, a
pointer to pointer, a macro, a K&R definition, two definitions) gives None, so
no edit is ever a guess.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.tsparser import parse_bytes, top_level_nodes

__all__ = ["Insertion", "restrict_insertions"]

Insertion = tuple[int, str]
"""Insert the text at this byte offset of the buffer."""


def _function_declarator(node: Node) -> Node | None:
    """The function declarator of a definition or declaration, through pointers."""
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type in ("pointer_declarator", "init_declarator"):
        decl = decl.child_by_field_name("declarator")
    return decl if decl is not None and decl.type == "function_declarator" else None


def _name(declarator: Node) -> str | None:
    inner = declarator.child_by_field_name("declarator")
    if inner is None or inner.type != "identifier" or inner.text is None:
        return None
    return inner.text.decode("utf-8", errors="replace")


def _parameters(declarator: Node) -> list[Node] | None:
    """The parameter declarations, or None for K&R lists or variadic functions."""
    params = declarator.child_by_field_name("parameters")
    if params is None or params.has_error:
        return None
    out: list[Node] = []
    for child in params.named_children:
        if child.type == "comment":
            continue
        if child.type != "parameter_declaration":
            return None  # an identifier list (K&R), `...`, or a macro
        out.append(child)
    return out


def _declared_name(param: Node) -> str | None:
    decl = param.child_by_field_name("declarator")
    while decl is not None and decl.type != "identifier":
        decl = decl.child_by_field_name("declarator")
    return None if decl is None or decl.text is None else decl.text.decode()


def _qualified(pointer: Node) -> bool:
    """Whether a pointer declarator already carries `restrict`."""
    return any(
        c.type == "type_qualifier"
        and c.text is not None
        and c.text.decode() in ("restrict", "__restrict", "__restrict__")
        for c in pointer.children
    )


def _insertion(param: Node, data: bytes) -> Insertion | None:
    """Where `restrict` goes in one `T *name` or `T *` parameter."""
    decl = param.child_by_field_name("declarator")
    if decl is None or _qualified(decl):
        return None
    if decl.type == "pointer_declarator":
        inner = decl.child_by_field_name("declarator")
        if inner is None or inner.type != "identifier":
            return None  # a pointer to pointer, or a parenthesised declarator
        return (inner.start_byte, "restrict ")
    if decl.type == "abstract_pointer_declarator" and not decl.named_children:
        end = decl.end_byte
        return (end, "restrict" if data[end - 1 : end] == b"*" else " restrict")
    if decl.type == "abstract_pointer_declarator" and all(
        c.type == "type_qualifier" for c in decl.named_children
    ):
        return (decl.end_byte, " restrict")
    return None


def restrict_insertions(
    text: str, function: str, params: tuple[str, ...]
) -> tuple[Insertion, ...] | None:
    """The insertions that add `restrict` to `params` of `function`, sorted.

    The buffer must define `function` once, with those parameters as plain
    pointers; every prototype of it in the buffer is edited the same way.
    """
    data = text.encode("utf-8", errors="surrogateescape")
    root = parse_bytes(data).root_node
    definitions: list[list[Node]] = []
    prototypes: list[list[Node]] = []
    for node in top_level_nodes(root):
        if node.type not in ("function_definition", "declaration"):
            continue
        declarator = _function_declarator(node)
        if declarator is None or _name(declarator) != function:
            continue
        found = _parameters(declarator)
        if found is None or node.has_error:
            return None
        (definitions if node.type == "function_definition" else prototypes).append(
            found
        )
    if len(definitions) != 1:
        return None  # none here, or one per #if branch: which one runs is unknown
    names = [_declared_name(p) for p in definitions[0]]
    if any(names.count(p) != 1 for p in params):
        return None
    where = [names.index(p) for p in params]
    out: list[Insertion] = []
    for declaration in (definitions[0], *prototypes):
        if len(declaration) != len(names):
            return None
        for index in where:
            found_at = _insertion(declaration[index], data)
            if found_at is None:
                return None
            out.append(found_at)
    return tuple(sorted(out))
