"""GNU nested functions: the enclosing function's variables their bodies write.

gcc lets a function be defined inside another (`void bump(void) { k++; }` in
`main`); its body writes `main`'s locals whenever it is called. The walk of
the enclosing function does not run the body in place, but records each such
write where the definition stands, as an update of unknown value: no fact may
take the variable for a value assigned once. A call of the nested function
is recorded under a name no definition has: its effects are unknown.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text, strip_parens

__all__ = ["NESTED_CALL", "nested_name", "nested_names", "outer_writes"]

# The name a call of a nested function is recorded under: no definition has it.
NESTED_CALL = "nested function "

_DECLARING = ("init_declarator", "parameter_declaration", "declaration")
_WRAPPERS = (
    "pointer_declarator",
    "array_declarator",
    "parenthesized_declarator",
    "init_declarator",
    "function_declarator",
)


def _declared(node: Node) -> str | None:
    """The name a declarator declares (`*p[4]` declares `p`)."""
    cur: Node | None = node
    while cur is not None and cur.type in _WRAPPERS:
        cur = cur.child_by_field_name("declarator")
    return node_text(cur) if cur is not None and cur.type == "identifier" else None


def nested_name(definition: Node) -> str:
    """The name a nested function definition defines."""
    declarator = definition.child_by_field_name("declarator")
    return (_declared(declarator) if declarator is not None else None) or ""


def nested_names(body: Node) -> set[str]:
    """The names of the nested functions defined anywhere in a function's body.

    A call may come before the definition (`auto void g(int);` declares it
    ahead): the walk must know the name from the start.
    """
    return {nested_name(n) for n in _nodes(body) if n.type == "function_definition"}


def _nodes(root: Node) -> list[Node]:
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.named_children)
    return out


def outer_writes(definition: Node) -> list[tuple[Node, str]]:
    """The names a nested definition writes that it does not declare itself.

    Assignments, `++`/`--` and `&x` (a callee may write through it) of a plain
    name count: a scalar's value is what the facts take for constant.
    """
    nodes = _nodes(definition)
    own: set[str] = set()
    for node in nodes:
        if node.type in _DECLARING:
            for child in node.children_by_field_name("declarator"):
                name = _declared(child)
                if name is not None:
                    own.add(name)
    out: list[tuple[Node, str]] = []
    for node in nodes:
        target: Node | None = None
        operator = node.child_by_field_name("operator")
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression" or (
            node.type == "pointer_expression"
            and operator is not None
            and node_text(operator) == "&"
        ):
            target = node.child_by_field_name("argument")
        target = strip_parens(target) if target is not None else None
        if target is not None and target.type == "identifier":
            written = node_text(target)
            if written not in own:
                out.append((target, written))
    return out
