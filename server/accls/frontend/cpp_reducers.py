"""Classes whose `operator+=` sums them field by field: user-defined reductions.

`s += v[i]` on a class `Vec3` calls `Vec3::operator+=`. When that operator's
body is only `f += o.f;` for arithmetic fields `f` of the class (and `return
*this;`), and `Vec3()` makes every such field zero, the update is a sum of
numbers, field by field: as associative as the scalar `+` OpenMP reduces, and
`Vec3()` is its identity. Such a class can be reduced with `#pragma omp declare
reduction(+ : Vec3 : omp_out += omp_in) initializer(omp_priv = Vec3())`, put
right after its definition. Anything else (another statement, a call, a base
class, a template, a field left unset by the constructor) makes it no reducer.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.cpp_types import CxxScope, classify
from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.model import RedOp, UserReduction

__all__ = ["class_reducers"]

_CLASSES = frozenset({"class_specifier", "struct_specifier"})
_ZERO = frozenset({"0", "0.0", "0.", "0.0f", "0.f", "0u", "0l", "0L", "0.0L"})


def class_reducers(
    root: Node, data: bytes, scope: CxxScope
) -> tuple[dict[str, UserReduction], dict[str, str]]:
    """The top-level classes `operator+=` sums field by field, and why not others.

    The second map is keyed by the call's name (`Acc::operator+=`) of each other
    class with one `operator+=`.
    """
    out: dict[str, UserReduction] = {}
    why_not: dict[str, str] = {}
    for node in root.named_children:
        if node.type not in _CLASSES:
            continue
        found = _reducer(node, data, scope)
        if isinstance(found, UserReduction):
            out[found.type_name] = found
        elif found is not None:
            name, why = found
            why_not[f"{name}::operator+="] = why
    return out, why_not


def _reducer(
    spec: Node, data: bytes, scope: CxxScope
) -> UserReduction | tuple[str, str] | None:
    name_node = spec.child_by_field_name("name")
    body = spec.child_by_field_name("body")
    if name_node is None or body is None or name_node.type != "type_identifier":
        return None
    name = node_text(name_node)
    operators = [m for m in body.named_children if _method_name(m) == "operator+="]
    if len(operators) != 1 or operators[0].type != "function_definition":
        return None
    line = operators[0].start_point.row + 1
    head = f"the operator `+=` of the class `{name}` (line {line}), which is not a sum"
    tail = "; as a call, what it does to its object is not summarised"
    if any(c.type == "base_class_clause" for c in spec.named_children):
        return name, f"{head} accls can prove: the class has a base class{tail}"
    if "operator+=" in scope.operators:
        return name, f"{head} accls can prove: a free `operator+=` is defined too{tail}"
    fields, defaults = _fields(body, scope)
    summed = _summed_fields(operators[0], name, fields)
    if isinstance(summed, str):
        return name, f"{head} of fields ({summed}){tail}"
    zero = _zero_made(body, name, summed, defaults)
    if zero is not None:
        return name, (
            f"{head} OpenMP can reduce: `{name}()` is not its identity ({zero}){tail}"
        )
    after = _line_after(spec, data)
    if after is None:
        return name, f"{head} accls can declare: no line follows its definition{tail}"
    return UserReduction(
        type_name=name,
        op=RedOp.ADD,
        combiner="omp_out += omp_in",
        initializer=f"omp_priv = {name}()",
        after=after,
        line=data.count(b"\n", 0, after) + 1,
        fields=tuple(summed),
    )


def _fields(body: Node, scope: CxxScope) -> tuple[set[str], dict[str, str | None]]:
    """The arithmetic data members, and each member's default initializer text."""
    arithmetic: set[str] = set()
    defaults: dict[str, str | None] = {}
    for item in body.named_children:
        if item.type != "field_declaration":
            continue
        base = item.child_by_field_name("type")
        if base is None or any(
            c.type == "storage_class_specifier" for c in item.children
        ):
            continue
        value = item.child_by_field_name("default_value")
        for decl in item.children_by_field_name("declarator"):
            if decl.type != "field_identifier":
                continue  # a pointer, an array, a reference or a method
            member = node_text(decl)
            defaults[member] = node_text(value) if value is not None else None
            kind = classify(node_text(base), scope)
            if kind.builtin and not kind.pointer and "bool" not in node_text(base):
                arithmetic.add(member)
    return arithmetic, defaults


def _method_name(node: Node) -> str | None:
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator") or next(
            (c for c in decl.named_children if "declarator" in c.type), None
        )
    target = decl.child_by_field_name("declarator") if decl is not None else None
    return "".join(node_text(target).split()) if target is not None else None


def _summed_fields(method: Node, cls: str, fields: set[str]) -> list[str] | str:
    """The fields `operator+=` adds `o.f` to, if its body does only that; else why."""
    text = node_text(method)
    if "virtual" in text.split("operator", 1)[0]:
        return "it is virtual"
    decl = method.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = next((c for c in decl.named_children if "declarator" in c.type), None)
    params = decl.child_by_field_name("parameters") if decl is not None else None
    plist = [p for p in params.named_children] if params is not None else []
    wrong = f"it does not take one `{cls}` by value or by reference"
    if len(plist) != 1 or plist[0].type != "parameter_declaration":
        return wrong
    ptype = plist[0].child_by_field_name("type")
    pdecl = plist[0].child_by_field_name("declarator")
    if ptype is None or pdecl is None or node_text(ptype) != cls:
        return wrong
    if pdecl.type == "reference_declarator":
        pdecl = pdecl.named_children[0] if pdecl.named_child_count else None
    if pdecl is None or pdecl.type != "identifier":
        return wrong
    other = node_text(pdecl)
    body = method.child_by_field_name("body")
    summed: list[str] = []
    for stmt in body.named_children if body is not None else ():
        if stmt.type == "comment":
            continue
        if stmt.type == "return_statement" and "".join(node_text(stmt).split()) in (
            "return*this;",
            "return;",
        ):
            continue
        member = _field_sum(stmt, other, fields)
        if member is None or member in summed:
            shown = " ".join(node_text(stmt).split())
            return (
                f"line {stmt.start_point.row + 1}, `{shown[:60]}`, is not "
                f"`f += {other}.f;` for an arithmetic field `f` summed once"
            )
        summed.append(member)
    return summed or "its body adds no field"


def _field_sum(stmt: Node, other: str, fields: set[str]) -> str | None:
    """`f += o.f;` (or `this->f += o.f;`): the field f, else None."""
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return None
    expr = stmt.named_children[0]
    if expr.type != "assignment_expression":
        return None
    op = expr.child_by_field_name("operator")
    left = expr.child_by_field_name("left")
    right = expr.child_by_field_name("right")
    if op is None or node_text(op) != "+=" or left is None or right is None:
        return None
    left = strip_parens(left)
    if left.type == "field_expression" and "".join(node_text(left).split()).startswith(
        "this->"
    ):
        target = node_text(left).split("->", 1)[1].strip()
    elif left.type == "identifier":
        target = node_text(left)
    else:
        return None
    if target not in fields:
        return None
    right = strip_parens(right)
    if "".join(node_text(right).split()) not in (f"{other}.{target}",):
        return None
    return target


def _zero_made(
    body: Node, cls: str, summed: list[str], defaults: dict[str, str | None]
) -> str | None:
    """Why `cls()` may not make every summed field zero; None when it does."""
    ctors = [m for m in body.named_children if _method_name(m) == cls]
    if not ctors:
        # No constructor: `cls()` value-initializes, zero unless a default says else.
        return _nonzero_defaults(summed, defaults)
    plain = [c for c in ctors if _no_params(c)]
    if len(plain) != 1 or plain[0].type != "function_definition":
        return "no default constructor defined in the class sets them"
    ctor = plain[0]
    fn_body = ctor.child_by_field_name("body")
    if fn_body is None:
        return "its default constructor is defaulted or defined elsewhere"
    if fn_body.named_child_count:
        return "its default constructor has a body, which may set them to anything"
    inits: dict[str, str] = {}
    for child in ctor.named_children:
        if child.type != "field_initializer_list":
            continue
        for init in child.named_children:
            if init.named_child_count < 2:
                return "its default constructor initializes a base or member oddly"
            member = node_text(init.named_children[0])
            args = "".join(node_text(init.named_children[1]).split())
            inits[member] = args[1:-1]
    for member in summed:
        if member in inits:
            if inits[member] not in _ZERO and inits[member] != "":
                return f"it sets `{member}` to `{inits[member]}`"
        elif defaults.get(member) is None:
            return f"it leaves `{member}` unset"
        elif not _zero_default(defaults[member]):
            return f"`{member}` starts as `{defaults[member]}`"
    return None


def _nonzero_defaults(summed: list[str], defaults: dict[str, str | None]) -> str | None:
    for member in summed:
        if not _zero_default(defaults.get(member)):
            return f"`{member}` starts as `{defaults[member]}`"
    return None


def _zero_default(text: str | None) -> bool:
    return text is None or text.strip().strip("{}").strip() in _ZERO | {""}


def _no_params(method: Node) -> bool:
    decl = method.child_by_field_name("declarator")
    params = decl.child_by_field_name("parameters") if decl is not None else None
    return params is not None and params.named_child_count == 0


def _line_after(spec: Node, data: bytes) -> int | None:
    """The offset of the line after the definition's `;`, if a line follows."""
    end = spec.end_byte
    semi = data.find(b";", end)
    if semi < 0 or data[end:semi].strip():
        return None
    newline = data.find(b"\n", semi)
    return newline + 1 if 0 <= newline < len(data) - 1 else None
