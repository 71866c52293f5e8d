"""C++ loops over a container's iterators, read as loops over its elements.

`for (auto it = v.begin(); it != v.end(); ++it) *it *= 2;` over a
`std::vector` (or `std::array`, `std::span`, `std::valarray`) visits the
elements `v[0]` .. `v[v.size() - 1]` in order, as `for (double &x : v)` does;
OpenMP takes the loop as written (a random-access iterator, `!=` or `<`). It
is read as that range-based `for` when the iterator is used only as `*it`:
any other use (`it + 1`, `it->f`, `f(it)`, a store to `it`) leaves it a plain
loop, which the analysis refuses.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from accls.frontend.exprs import node_text, strip_parens

__all__ = ["IteratorLoop", "iterator_loop"]

_BEGIN = {"begin": "end", "cbegin": "cend"}
_TESTS = frozenset({"!=", "<"})


@dataclass(frozen=True, slots=True)
class IteratorLoop:
    """`for (T it = range.begin(); it != range.end(); ++it)`: its parts."""

    name: str  # the iterator: `it`
    range: Node  # the container expression: `v`, `d.cells`
    type_text: (
        str  # the iterator's declared type: `auto`, `std::vector<double>::iterator`
    )


def iterator_loop(node: Node) -> IteratorLoop | None:
    """The iterator loop `node` is, or None when it is not one of that shape."""
    init = node.child_by_field_name("initializer")
    cond = node.child_by_field_name("condition")
    update = node.child_by_field_name("update")
    body = node.child_by_field_name("body")
    if init is None or cond is None or update is None or body is None:
        return None
    declared = _declared(init)
    if declared is None:
        return None
    name, range_node, method, type_text = declared
    if not _test(cond, name, node_text(range_node), _BEGIN[method]):
        return None
    if not _step(update, name) or not _only_dereferenced(body, name):
        return None
    return IteratorLoop(name, range_node, type_text)


def _declared(init: Node) -> tuple[str, Node, str, str] | None:
    """`T it = range.begin()`: the name, the range, `begin`/`cbegin`, and `T`."""
    if init.type != "declaration":
        return None
    declarators = init.children_by_field_name("declarator")
    type_node = init.child_by_field_name("type")
    if len(declarators) != 1 or type_node is None:
        return None
    decl = declarators[0]
    target = decl.child_by_field_name("declarator")
    value = decl.child_by_field_name("value")
    if decl.type != "init_declarator" or target is None or value is None:
        return None
    if target.type != "identifier":
        return None
    method = _method_call(value)
    if method is None or method[1] not in _BEGIN:
        return None
    type_text = " ".join(node_text(type_node).split())
    if type_text != "auto" and not type_text.endswith("iterator"):
        return None
    return node_text(target), method[0], method[1], type_text


def _method_call(node: Node) -> tuple[Node, str] | None:
    """`obj.m()` with no arguments: the object and the method's name."""
    node = strip_parens(node)
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if node.type != "call_expression" or fn is None or args is None:
        return None
    if fn.type != "field_expression" or args.named_child_count:
        return None
    if any(c.type == "->" for c in fn.children if not c.is_named):
        return None
    obj = fn.child_by_field_name("argument")
    field = fn.child_by_field_name("field")
    if obj is None or field is None:
        return None
    return obj, node_text(field)


def _test(cond: Node, name: str, range_text: str, end: str) -> bool:
    """`it != range.end()` or `it < range.end()`."""
    cond = strip_parens(cond)
    if cond.type == "condition_clause" and cond.named_child_count == 1:
        cond = strip_parens(cond.named_children[0])
    if cond.type != "binary_expression":
        return False
    left = cond.child_by_field_name("left")
    right = cond.child_by_field_name("right")
    op = cond.child_by_field_name("operator")
    if left is None or right is None or op is None or node_text(op) not in _TESTS:
        return False
    method = _method_call(right)
    return (
        strip_parens(left).type == "identifier"
        and node_text(strip_parens(left)) == name
        and method is not None
        and method[1] == end
        and node_text(method[0]) == range_text
    )


def _step(update: Node, name: str) -> bool:
    """`++it` or `it++`."""
    update = strip_parens(update)
    arg = update.child_by_field_name("argument")
    return (
        update.type == "update_expression"
        and "++" in node_text(update)
        and arg is not None
        and node_text(strip_parens(arg)) == name
    )


def _only_dereferenced(body: Node, name: str) -> bool:
    """Every use of `name` in the body is `*name`; no declaration hides it."""
    stack = [body]
    while stack:
        cur = stack.pop()
        if cur.type == "identifier" and node_text(cur) == name:
            parent = cur.parent
            if parent is None or parent.type != "pointer_expression":
                return False
            if not node_text(parent).lstrip().startswith("*"):
                return False
        if cur.type == "lambda_expression":
            return False  # a closure may keep the iterator past the iteration
        stack.extend(cur.children)
    return True
