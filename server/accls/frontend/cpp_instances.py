"""The instantiations of a file's templates, and the type each binds a parameter to.

A template's loop is analysed as written, and an operator on a value of a
template parameter's type may be a call of anything. When the program shows
every instantiation, the parameter is as known as the types it is bound to:
`smooth<double>(v)`, or `smooth(a)` with `std::vector<double> a`, or a
`Field<float> f` of a class template. Only a file that defines `main` is read
as the whole program (a template in another file may be instantiated by files
not given). A parameter is bound only when every instantiation names an
arithmetic type; then it reads as the most restrictive of them (a `float`,
whose totals the narrow-sum rule refuses, before a `double`, before an
integer), so the loop gets a pragma only if every instantiation would. An
instantiation not read (a class type, a type deduced from an expression, a
call from another template) leaves the parameter unknown, as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from accls.frontend.exprs import node_text

__all__ = ["class_bindings", "instance_texts", "template_bindings"]

# The arithmetic types a parameter may be bound to, most restrictive first: a
# float total is refused, then an unsigned counter may wrap (a signed one may
# not: its overflow is undefined), then the signed types.
_ORDER = (
    "float", "double", "long double",
    "unsigned short", "unsigned", "unsigned int", "unsigned long",
    "unsigned long long", "size_t", "std::size_t", "uint32_t", "uint64_t",
    "std::uint32_t", "std::uint64_t",
    "short", "int", "long", "long long", "ptrdiff_t", "std::ptrdiff_t",
    "int32_t", "int64_t", "std::int32_t", "std::int64_t",
)  # fmt: skip
_RANK = {name: rank for rank, name in enumerate(_ORDER)}
_UNKNOWN = "?"
_TOKEN = re.compile(r"[A-Za-z_][\w:]*(?:\s+[A-Za-z_][\w:]*)*|\d\w*|[<>,*\[\]]")
_DROPPED = frozenset({"const", "volatile", "typename", "struct", "class"})


def _normal(text: str) -> str:
    """A type's text without qualifiers, references and extra spaces."""
    words = re.findall(r"[A-Za-z_][\w:]*|\d\w*|[<>,*\[\]]", text.replace("&", " "))
    return " ".join(w for w in words if w not in _DROPPED)


def _type_params(template: Node) -> list[str]:
    """A template's parameters in order: a type one's name, "" for any other.

    A non-type parameter (`std::size_t N`) is `#N`: never bound, it matches
    any value where a parameter's type is unified with an argument's.
    """
    plist = template.child_by_field_name("parameters")
    names: list[str] = []
    for param in plist.named_children if plist is not None else ():
        if param.type in (
            "type_parameter_declaration",
            "optional_type_parameter_declaration",
        ):
            named = [c for c in param.named_children if c.type == "type_identifier"]
            names.append(node_text(named[0]) if named else "")
        else:
            value = param.child_by_field_name("declarator")
            plain = value is not None and value.type == "identifier"
            names.append("#" + node_text(value) if plain and value else "")
    return names


def _walk(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.named_children))


def _literal_type(node: Node) -> str:
    text = node_text(node).lower()
    if node.type != "number_literal" or text.startswith("0x"):
        return _UNKNOWN
    if text.endswith("f"):
        return "float"
    if "." in text or "e" in text:
        return "double" if not text.endswith("l") else "long double"
    return "int" if text.isdigit() else _UNKNOWN


def _declared_types(root: Node, deep: bool = True) -> dict[str, set[str]]:
    """Every type text each name is declared with in `root` (or at its top level)."""
    out: dict[str, set[str]] = {}
    for node in _walk(root) if deep else root.named_children:
        if node.type not in ("declaration", "parameter_declaration"):
            continue
        base = node.child_by_field_name("type")
        if base is None:
            continue
        # `std::vector<double> a(n)` in a body reads as a declarator of a
        # function: it constructs an object.
        constructs = deep and "<" in node_text(base)
        for decl in node.children_by_field_name("declarator"):
            found = _declarator_name(decl, constructs)
            if found is not None:
                text = _normal(node_text(base)) + found[1]
                out.setdefault(found[0], set()).add(text)
    return out


def _declarator_name(decl: Node, constructs: bool) -> tuple[str, str] | None:
    """The name a declarator declares and the pointer levels it adds."""
    levels = ""
    inner: Node | None = decl
    while inner is not None and inner.type != "identifier":
        if inner.type in ("pointer_declarator", "array_declarator"):
            levels += " *"
        elif inner.type not in ("init_declarator", "reference_declarator") and not (
            constructs and inner.type == "function_declarator"
        ):
            return None
        nxt = inner.child_by_field_name("declarator")
        if nxt is None and inner.named_child_count:
            nxt = inner.named_children[0]
        inner = nxt
    return (node_text(inner), levels) if inner is not None else None


def _typed(param: str) -> bool:
    """Whether a parameter of `_type_params` is a type parameter."""
    return bool(param) and not param.startswith("#")


def _unify(pattern: str, actual: str, params: list[str]) -> dict[str, str] | None:
    """The binding that makes the parameter's type `pattern` the argument's type."""
    want = _TOKEN.findall(pattern)
    have = _TOKEN.findall(actual)
    if want and want[-1] == "*" and have == ["?"]:
        return None
    binding: dict[str, str] = {}
    if len(want) == 1 and want[0] in params:
        # `T a` takes the argument's type, less a reference and qualifiers.
        return {want[0]: actual} if actual in _RANK else None
    if len(want) != len(have):
        return None
    for w, h in zip(want, have, strict=True):
        if f"#{w}" in params and h not in "<>,*[]":
            continue  # a non-type parameter takes any value
        if w in params:
            if binding.setdefault(w, h) != h:
                return None
        elif w != h and w.removeprefix("std::") != h.removeprefix("std::"):
            return None
    return binding


def _call_bindings(
    call: Node, params: list[str], formals: list[str], globals_: dict[str, set[str]]
) -> dict[str, str]:
    """What one call binds each parameter to (`?` where it is not read)."""
    around = call.parent
    while around is not None and around.type != "function_definition":
        around = around.parent
    # A name is the enclosing function's (any of its declarations), else a global.
    names = {**globals_, **(_declared_types(around) if around is not None else {})}
    function = call.child_by_field_name("function")
    binding: dict[str, str] = {}
    if function is not None and function.type == "template_function":
        targs = function.child_by_field_name("arguments")
        given = [_normal(node_text(a)) for a in targs.named_children] if targs else []
        binding.update(zip(params, given, strict=False))
    args = call.child_by_field_name("arguments")
    actuals = args.named_children if args is not None else []
    for formal, actual in zip(formals, actuals, strict=False):
        if not any(p in _TOKEN.findall(formal) for p in params):
            continue
        if actual.type == "identifier":
            types = names.get(node_text(actual), set())
            text = next(iter(types)) if len(types) == 1 else _UNKNOWN
        else:
            text = _literal_type(actual)
        found = _unify(formal, text, params)
        for name, bound in (found or {}).items():
            if binding.setdefault(name, bound) != bound:
                binding[name] = _UNKNOWN  # deduction conflicts: not read
    return {p: binding.get(p, _UNKNOWN) for p in params if _typed(p)}


def _formals(definition: Node) -> list[str]:
    decl = definition.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    plist = decl.child_by_field_name("parameters") if decl is not None else None
    out: list[str] = []
    for param in plist.named_children if plist is not None else ():
        base = param.child_by_field_name("type")
        stars = node_text(param).count("*") - (
            node_text(base).count("*") if base is not None else 0
        )
        out.append(_normal(node_text(base) if base is not None else "") + " *" * stars)
    return out


def _pick(seen: dict[str, set[str]]) -> dict[str, str]:
    """Each parameter's most restrictive type, if every instantiation is arithmetic."""
    if not seen or any(
        not types or not types <= _RANK.keys() for types in seen.values()
    ):
        return {}
    return {name: min(types, key=_RANK.__getitem__) for name, types in seen.items()}


def _function_name(definition: Node) -> str | None:
    decl = definition.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    target = decl.child_by_field_name("declarator") if decl is not None else None
    return (
        node_text(target)
        if target is not None and target.type == "identifier"
        else None
    )


def _named_elsewhere(root: Node, name: str, own: Node, users: tuple[str, ...]) -> bool:
    """Whether `name` appears outside `own` other than as the head of `users`."""
    for node in _walk(root):
        if node.start_byte >= own.start_byte and node.end_byte <= own.end_byte:
            continue
        if (
            node.type not in ("identifier", "type_identifier")
            or node_text(node) != name
        ):
            continue
        parent = node.parent
        if parent is None or parent.type not in users:
            return True
        if parent.type == "template_function" and (
            parent.parent is None or parent.parent.type != "call_expression"
        ):
            return True
    return False


def _defines_main(root: Node) -> bool:
    return any(
        c.type == "function_definition" and _function_name(c) == "main"
        for c in root.named_children
    )


def _templates(
    root: Node,
) -> tuple[dict[str, list[tuple[Node, list[str]]]], dict[str, tuple[Node, list[str]]]]:
    """The file's function templates (by name) and class templates."""
    functions: dict[str, list[tuple[Node, list[str]]]] = {}
    classes: dict[str, tuple[Node, list[str]]] = {}
    for template in (n for n in _walk(root) if n.type == "template_declaration"):
        params = _type_params(template)
        inner = [
            c for c in template.named_children if c.type != "template_parameter_list"
        ]
        if not any(params) or len(inner) != 1:
            continue
        node = inner[0]
        name = _function_name(node) if node.type == "function_definition" else None
        outer = template.parent.type if template.parent is not None else ""
        if name is not None and outer in ("translation_unit", "declaration_list"):
            functions.setdefault(name, []).append((node, params))
        elif node.type in ("class_specifier", "struct_specifier"):
            cname = node.child_by_field_name("name")
            if cname is not None:
                classes[node_text(cname)] = (node, params)
    return functions, classes


def _function_instances(
    root: Node, name: str, node: Node, params: list[str]
) -> dict[str, str]:
    """What every call of the function template `name` binds its parameters to."""
    if _named_elsewhere(root, name, node, ("call_expression", "template_function")):
        return {}  # taken by address, qualified, declared again: not all read
    if any(n.type == "template_instantiation" for n in _walk(root)):
        return {}  # an explicit instantiation: not read here
    names = _declared_types(root, deep=False)
    seen: dict[str, set[str]] = {p: set() for p in params if _typed(p)}
    formals = _formals(node)
    for call in (n for n in _walk(root) if n.type == "call_expression"):
        function = call.child_by_field_name("function")
        head = function
        if function is not None and function.type == "template_function":
            head = function.child_by_field_name("name")
        if head is None or node_text(head) != name:
            continue
        for param, bound in _call_bindings(call, params, formals, names).items():
            seen[param].add(bound)
    return _pick(seen)


def _enclosing_binding(
    use: Node, functions: dict[int, dict[str, str]]
) -> dict[str, str]:
    """The bound parameters of the function template `use` is written in, if any."""
    around = use.parent
    while around is not None and around.type != "function_definition":
        around = around.parent
    return functions.get(around.start_byte, {}) if around is not None else {}


def _class_instances(
    root: Node,
    name: str,
    node: Node,
    params: list[str],
    functions: dict[int, dict[str, str]],
) -> dict[str, str]:
    """What every `Name<args>` of the class template binds its parameters to.

    `Field<T, N>` written in a function template whose every instantiation is
    read (`functions`, by start byte) binds what that function's `T` is bound to.
    """
    if _named_elsewhere(root, name, node, ("template_type",)):
        return {}  # `Name g(..)` deduces its arguments: not read
    seen: dict[str, set[str]] = {p: set() for p in params if _typed(p)}
    for use in (n for n in _walk(root) if n.type == "template_type"):
        head = use.child_by_field_name("name")
        if head is None or node_text(head) != name:
            continue
        targs = use.child_by_field_name("arguments")
        given = [_normal(node_text(a)) for a in targs.named_children] if targs else []
        outer = _enclosing_binding(use, functions)
        given = [outer.get(arg, arg) for arg in given] + [_UNKNOWN] * len(params)
        for param, bound in zip(params, given, strict=False):
            if _typed(param):
                seen[param].add(bound)
    return _pick(seen)


def template_bindings(root: Node) -> dict[int, dict[str, str]]:
    """Each template function's (by its node's start byte) bound parameters."""
    if not _defines_main(root):
        return {}
    functions, classes = _templates(root)
    out = _function_bindings(root, functions)
    bound = dict(out)
    for name, (node, params) in classes.items():
        if picked := _class_instances(root, name, node, params, bound):
            for method in (n for n in _walk(node) if n.type == "function_definition"):
                out[method.start_byte] = picked
    return out


def class_bindings(root: Node) -> dict[str, dict[str, str]]:
    """Each class template's (by name) bound parameters: its data members' types."""
    if not _defines_main(root):
        return {}
    functions, classes = _templates(root)
    bound = _function_bindings(root, functions)
    out: dict[str, dict[str, str]] = {}
    for name, (node, params) in classes.items():
        if picked := _class_instances(root, name, node, params, bound):
            out[name] = picked
    return out


def _function_bindings(
    root: Node, functions: dict[str, list[tuple[Node, list[str]]]]
) -> dict[int, dict[str, str]]:
    """Each function template's (by start byte) parameters every call binds."""
    out: dict[int, dict[str, str]] = {}
    for name, found in functions.items():
        # Overloaded templates: which one a call picks is not read.
        if len(found) == 1 and (picked := _function_instances(root, name, *found[0])):
            out[found[0][0].start_byte] = picked
    return out


def instance_texts(root: Node, classes: set[str]) -> set[tuple[str, str]]:
    """Each `Name<args>` written of these class templates, as a declaration's type."""
    out: set[tuple[str, str]] = set()
    for use in (n for n in _walk(root) if n.type == "template_type"):
        head = use.child_by_field_name("name")
        if head is not None and node_text(head) in classes:
            out.add((" ".join(node_text(use).split()), node_text(head)))
    return out
