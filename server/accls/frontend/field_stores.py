"""Every place a file may set a struct's pointer field, as text for the analysis.

The analysis decides what a pointer field may point to from every store to it
in the program (`atoms->gid = malloc(..)`, `a->f = b->g`), and gives up on a
field whose address is taken, or a struct that is cast or initialised as a
whole. This module lists those places: it resolves no types (the analysis does,
with the file's declarations), it only reads the syntax.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.pointer_slots import Slot, slot_fills
from accls.frontend.source_file import FieldEvent, FieldEventKind

__all__ = ["field_events"]


def _text(node: Node | None) -> str:
    return "".join(node_text(node).split()) if node is not None else ""


def _value(node: Node | None) -> str:
    """A stored value's text; C++'s `new T[n]` keeps its space (`new double[n]`)."""
    inner = strip_parens(node) if node is not None else None
    if (
        inner is not None
        and inner.type == "new_expression"
        and inner.child_by_field_name("placement") is None
    ):
        return "new " + _text(inner).removeprefix("new")
    return _text(node)


def _trivial(node: Node) -> bool:
    """An initializer list of zeros and NULLs only: it stores no pointer."""
    for child in node.named_children:
        inner = strip_parens(child)
        if inner.type == "initializer_list":
            if not _trivial(inner):
                return False
        elif _text(inner) not in ("0", "NULL", "0.0", "((void*)0)"):
            return False
    return True


def _initializer(list_: Node, path: str, function: str, out: list[FieldEvent]) -> None:
    """`{.f = e, ...}` stores into `path.f`; positional members are an INIT."""
    line = list_.start_point.row + 1
    positional = False
    for child in list_.named_children:
        if child.type == "initializer_pair":
            designators = child.child_by_field_name("designator")
            value = child.child_by_field_name("value")
            names = [c for c in child.named_children if c.type == "field_designator"]
            if len(names) == 1 and designators is not None and value is not None:
                field = _text(names[0]).lstrip(".")
                if value.type == "initializer_list":
                    _initializer(value, f"{path}.{field}", function, out)
                else:
                    out.append(
                        FieldEvent(
                            kind=FieldEventKind.STORE,
                            function=function,
                            path=f"{path}.{field}",
                            value=_text(value),
                            line=line,
                        )
                    )
                continue
            positional = True
        elif not _trivial_child(child):
            positional = True
    if positional:
        out.append(
            FieldEvent(
                kind=FieldEventKind.INIT,
                function=function,
                path=path,
                value="",
                line=line,
            )
        )


def _trivial_child(child: Node) -> bool:
    inner = strip_parens(child)
    if inner.type == "initializer_list":
        return _trivial(inner)
    return _text(inner) in ("0", "NULL", "0.0", "((void*)0)")


def _declared_name(declarator: Node | None) -> str:
    while declarator is not None and declarator.type != "identifier":
        declarator = declarator.child_by_field_name("declarator")
    return node_text(declarator) if declarator is not None else ""


def _call_of(node: Node) -> str:
    """The callee when `node` is an argument of a call, else ""."""
    parent = node.parent
    if parent is None or parent.type != "argument_list" or parent.parent is None:
        return ""
    return _text(parent.parent.child_by_field_name("function"))


def _row_of_field(node: Node) -> bool:
    """`x->f[k]`: one subscript of a struct field (a row of a pointer table)."""
    if node.type != "subscript_expression":
        return False
    base = node.child_by_field_name("argument")
    return base is not None and strip_parens(base).type == "field_expression"


def _own_names(top: Node) -> set[str]:
    """The names a definition declares: its parameters and locals."""
    names: set[str] = set()
    stack = [top]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type in ("parameter_declaration", "optional_parameter_declaration"):
            names.add(_declared_name(node.child_by_field_name("declarator")))
        elif node.type == "declaration":
            for declarator in node.children_by_field_name("declarator"):
                names.add(_declared_name(declarator))
    return names


def _member_path(node: Node, members: frozenset[str]) -> str:
    """`this->m` for a bare data member `m` of a C++ method, else ""."""
    if node.type == "identifier" and node_text(node) in members:
        return f"this->{node_text(node)}"
    return ""


def _freed(node: Node) -> bool:
    """Whether `node` is the one argument of a call of `free`.

    A view of a struct (or a field) that is only handed to `free` stores no
    field and reads none: the block is released.
    """
    top = node
    while top.parent is not None and top.parent.type == "parenthesized_expression":
        top = top.parent
    args = top.parent
    call = args.parent if args is not None else None
    if args is None or call is None or args.type != "argument_list":
        return False
    function = call.child_by_field_name("function")
    return (
        call.type == "call_expression"
        and function is not None
        and node_text(function) == "free"
        and args.named_child_count == 1
    )


_EVENT_KINDS = frozenset(
    {
        "assignment_expression",
        "init_declarator",
        "compound_literal_expression",
        "pointer_expression",
        "cast_expression",
        "return_statement",
    }
)
"""The nodes `field_events` reads; it only walks through the others."""


def field_events(
    nodes: list[Node],
    names: list[str],
    members: list[frozenset[str]] | None = None,
    slots: frozenset[Slot] = frozenset(),
) -> tuple[FieldEvent, ...]:
    """The field events of `nodes`: definitions named by `names` ("" at file scope).

    `members` holds, per definition, the data members of a C++ method's class: a
    bare `m = v` there stores `this->m`. `slots` are the functions that only free
    a pointer whose address they get (`Release(&m)`): no event.
    """
    out: list[FieldEvent] = []
    every = members if members is not None else [frozenset()] * len(nodes)
    for top, function, mine in zip(nodes, names, every, strict=True):
        own = mine - _own_names(top) if mine else mine
        stack = [top]
        while stack:
            node = stack.pop()
            # Tokens and names (no children) hold no event: they are not walked.
            stack.extend(c for c in reversed(node.named_children) if c.child_count)
            kind = node.type
            if kind not in _EVENT_KINDS:
                continue
            line = node.start_point.row + 1
            if kind == "assignment_expression":
                left = strip_parens(node.child_by_field_name("left") or node)
                operator = node.child_by_field_name("operator")
                bare = _member_path(left, own)
                if (left.type == "field_expression" or bare) and _text(operator) == "=":
                    out.append(
                        FieldEvent(
                            kind=FieldEventKind.STORE,
                            function=function,
                            path=bare or _text(left),
                            value=_value(node.child_by_field_name("right")),
                            line=line,
                        )
                    )
                elif _row_of_field(left):
                    plain = _text(operator) == "="
                    right = _text(node.child_by_field_name("right"))
                    out.append(
                        FieldEvent(
                            kind=FieldEventKind.STORE,
                            function=function,
                            path=_text(left),  # `x->f[k]`: a row of a pointer field
                            value=right if plain else f"{_text(left)}+?",
                            line=line,
                        )
                    )
                elif left.type == "field_expression":
                    out.append(
                        FieldEvent(
                            kind=FieldEventKind.STORE,
                            function=function,
                            path=_text(left),
                            value=f"{_text(left)}+?",  # `p->f += k`: into its own
                            line=line,
                        )
                    )
            elif kind == "init_declarator":
                value = node.child_by_field_name("value")
                if value is not None and value.type == "initializer_list":
                    name = _declared_name(node.child_by_field_name("declarator"))
                    if not _trivial(value):
                        _initializer(value, name, function, out)
            elif kind == "compound_literal_expression":
                value = node.child_by_field_name("value")
                if value is not None and not _trivial(value):
                    out.append(
                        FieldEvent(
                            kind=FieldEventKind.INIT,
                            function=function,
                            path="",
                            value=_text(node.child_by_field_name("type")),
                            line=line,
                        )
                    )
            elif kind == "pointer_expression":
                operator = node.child_by_field_name("operator")
                argument = node.child_by_field_name("argument")
                inner = strip_parens(argument) if argument is not None else None
                taken = _text(operator) == "&" and inner is not None
                bare = _member_path(inner, own) if inner is not None else ""
                into = inner is not None and (
                    inner.type == "field_expression" or _row_of_field(inner) or bare
                )
                parent = node.parent
                if (
                    taken
                    and parent is not None
                    and slot_fills(node, parent, slots) is False
                ):
                    continue  # `Release(&s->f)`: freed and nulled, nothing stored
                if taken and inner is not None and into:
                    out.append(
                        FieldEvent(
                            kind=FieldEventKind.ADDRESS,
                            function=function,
                            path=bare or _text(inner),
                            value=_call_of(node),
                            line=line,
                        )
                    )
            elif kind == "cast_expression":
                if _freed(node):
                    continue  # `free((char *) net)`: released, no field set
                value = node.child_by_field_name("value")
                out.append(
                    FieldEvent(
                        kind=FieldEventKind.CAST,
                        function=function,
                        path=_text(strip_parens(value) if value is not None else None),
                        value=_text(node.child_by_field_name("type")),
                        line=line,
                    )
                )
            elif kind == "return_statement" and node.named_child_count:
                out.append(
                    FieldEvent(
                        kind=FieldEventKind.RETURN,
                        function=function,
                        path="",
                        value=_text(node.named_children[0]),
                        line=line,
                    )
                )
    return tuple(out)
