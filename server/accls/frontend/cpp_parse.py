"""The C++ side of the front end: which files are C++, their functions, their walks.

`parse_source` reads a C++ file with the same steps as a C file; this module
supplies what differs: the grammar, the functions of namespaces, classes and
templates with their qualified names, the parameters' types, and the walk that
reads operators on class types as calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from tree_sitter import Node

from accls.frontend.cpp_decls import cpp_var, is_reference
from accls.frontend.cpp_default_args import default_arguments
from accls.frontend.cpp_instances import (
    class_bindings,
    instance_texts,
    template_bindings,
)
from accls.frontend.cpp_methods import add_accessors, header_scope
from accls.frontend.cpp_reducers import class_reducers
from accls.frontend.cpp_scope import collect_scope
from accls.frontend.cpp_types import (
    UNKNOWN,
    ClassInfo,
    CxxScope,
    TypeKind,
    classify,
    declarator_type,
    declared_name,
    scalar_aliases,
)
from accls.frontend.cpp_walker import CppFunctionWalk
from accls.frontend.decls import declared_vars
from accls.frontend.exprs import node_text
from accls.frontend.macros import MacroTable
from accls.frontend.model import UserReduction, Var
from accls.frontend.typetable import TypeTable

__all__ = ["CppUnit", "Definition", "member_var"]

_SCOPES = frozenset(
    {"namespace_definition", "template_declaration", "linkage_specification"}
)
_CLASSES = frozenset({"class_specifier", "struct_specifier", "union_specifier"})


@dataclass(frozen=True, slots=True)
class Definition:
    """A function definition of the file, with the class it is a member of."""

    node: Node
    name: str
    class_name: str | None


def member_var(name: str, text: str, scope: CxxScope) -> Var:
    """A data member as a struct field: a container's elements lie in the object.

    Two `std::vector` members never share elements (each owns its buffer), so the
    access path `d.v[i]` reaches storage of `d` alone, like a C array field.
    """
    kind = classify(text, scope)
    if kind.kind is TypeKind.CONTAINER:
        element = classify(kind.element, scope)
        plain = kind.element if element.builtin and not element.pointer else "<row>"
        return Var(name=name, type=plain, dims=(None,), levels="[", container=True)
    if kind.builtin and kind.pointer:
        # `double *m_p`: one level, then the typedefs' own; `T **`, unknown.
        inner = classify(kind.element, scope) if kind.element else UNKNOWN
        levels = "*" if inner.builtin and not inner.pointer else "*?"
        return Var(name=name, type=kind.element or "void", pointers=1, levels=levels)
    if kind.builtin:
        return Var(name=name, type=text.replace("&", "").strip())
    if kind.kind is TypeKind.CLASS and kind.name:
        return Var(name=name, type=kind.name.rsplit("::", 1)[-1])
    return Var(name=name, type="<unknown>", unknown_shape=True)


def _member(name: str, text: str, info: ClassInfo, scope: CxxScope) -> Var:
    """`member_var`, a static member marked static, a reference one a pointer.

    A static data member is one object of the class, not of each instance; a
    reference member reaches another object, like a pointer (see `cpp_var`).
    """
    var = replace(member_var(name, text, scope), bitfield=name in info.bitfields)
    if name in info.varying or name in info.constants:
        var = replace(var, static=True)
    if name in info.references and var.container:
        # `std::vector<double> &r`: another object's elements, as `double *r`
        # reaches them, not a buffer this object owns.
        return replace(var, dims=(), levels="*", container=False, pointers=1)
    if name in info.references:
        var = replace(var, pointers=var.pointers + 1)
    return var


def _declarator(node: Node) -> Node | None:
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    return decl


class CppUnit:
    """One C++ translation unit: its scope of types and its functions."""

    def __init__(self, root: Node, data: bytes = b"") -> None:
        self.root = root
        self.scope: CxxScope = collect_scope(root)
        self.own_classes = frozenset(self.scope.classes)  # not a header's
        self.scope.reducers, self.unreduced = class_reducers(root, data, self.scope)
        # Each function's parameters that are references to objects, by its node.
        self._object_refs: dict[int, frozenset[str]] = {}
        add_accessors(root, self.scope)
        # Template functions whose every instantiation is read: see cpp_instances.
        self.bindings = template_bindings(root)
        self.class_bindings = class_bindings(root)
        self.defaults = default_arguments(root)

    def bound(self, node: Node) -> dict[str, str]:
        """The types the program binds a template function's parameters to."""
        return self.bindings.get(node.start_byte, {})

    def _scope_for(self, node: Node) -> CxxScope:
        """The scope of one definition: its template parameters bound, if known."""
        return self._bound_scope(self.bound(node))

    def _bound_scope(self, binding: dict[str, str]) -> CxxScope:
        """The file's scope with these template parameters bound."""
        if not binding:
            return self.scope
        return replace(
            self.scope,
            template_params=self.scope.template_params - binding.keys(),
            aliases={**self.scope.aliases, **binding},
        )

    def top_level(self) -> tuple[list[Definition], list[Node]]:
        """Every function definition (namespaces, classes, templates), the globals."""
        functions: list[Definition] = []
        decls: list[Node] = []
        for node, owner in self._walk(self.root, None):
            if node.type == "function_definition":
                name = self._name(node, owner)
                if name is not None:
                    functions.append(Definition(node, name[0], name[1]))
            elif node.type == "declaration" and owner is None:
                decls.append(node)
        return functions, decls

    def _walk(self, root: Node, owner: str | None) -> Iterator[tuple[Node, str | None]]:
        stack: list[tuple[Node, str | None]] = [
            (c, owner) for c in reversed(root.named_children)
        ]
        while stack:
            node, cls = stack.pop()
            kind = node.type
            if (
                kind.startswith("preproc_if")
                or kind
                in (
                    "preproc_else",
                    "preproc_elif",
                )
                or kind in _SCOPES
                or kind == "declaration_list"
            ):
                stack.extend((c, cls) for c in reversed(node.named_children))
            elif kind in _CLASSES or (
                kind in ("declaration", "type_definition", "field_declaration")
                and any(c.type in _CLASSES for c in node.named_children)
            ):
                spec = (
                    node
                    if kind in _CLASSES
                    else next(c for c in node.named_children if c.type in _CLASSES)
                )
                name = spec.child_by_field_name("name")
                body = spec.child_by_field_name("body")
                inner = node_text(name) if name is not None else cls
                if body is not None:
                    stack.extend((c, inner) for c in reversed(body.named_children))
                if kind == "declaration":
                    yield node, cls
            elif kind in ("function_definition", "declaration"):
                yield node, cls

    def _name(self, node: Node, owner: str | None) -> tuple[str, str | None] | None:
        decl = _declarator(node)
        target = decl.child_by_field_name("declarator") if decl is not None else None
        if target is None:
            return None
        text = "".join(node_text(target).split())
        if target.type == "qualified_identifier" or "::" in text:
            head, _, _ = text.rpartition("::")
            cls = head.rsplit("::", 1)[-1].split("<", 1)[0]
            return text, cls if cls in self.scope.classes else None
        if owner is not None:
            return f"{owner}::{text}", owner
        return text, None

    def params(
        self, node: Node, macros: MacroTable, definition: Definition | None = None
    ) -> tuple[list[Var], dict[str, str], frozenset[str]]:
        """The parameters as the analysis reads them, their C++ types, references.

        A method's object comes first: `this`, a pointer to its class, as a call
        `obj.m(args)` passes `obj` first.
        """
        decl = _declarator(node)
        plist = decl.child_by_field_name("parameters") if decl is not None else None
        params: list[Var] = []
        this = self._this(definition) if definition is not None else None
        scope = self._scope_for(node)
        objects: set[str] = set()
        if this is not None:
            params.append(this)
        env: dict[str, str] = {}
        references: set[str] = set()
        for param in plist.named_children if plist is not None else ():
            if param.type not in (
                "parameter_declaration",
                "optional_parameter_declaration",
            ):
                continue
            declarator = param.child_by_field_name("declarator")
            target = declared_name(declarator)
            if target is None:
                continue
            text = declarator_type(param.child_by_field_name("type"), declarator)
            kind = classify(text, scope)
            reference = is_reference(declarator)
            env[node_text(target)] = text
            if reference and kind.kind is TypeKind.CLASS:
                objects.add(node_text(target))
            if reference and kind.builtin and not kind.pointer:
                references.add(node_text(target))
            params.extend(
                cpp_var(v, kind, reference, scope)
                for v in declared_vars(param, "param", macros)
            )
        self._object_refs[node.start_byte] = frozenset(objects)
        return params, env, frozenset(references)

    def _this(self, definition: Definition) -> Var | None:
        """`this` of a method that has one (not a static one), else None."""
        info = self.scope.classes.get(definition.class_name or "")
        method = definition.name.rsplit("::", 1)[-1]
        if info is None or method in info.statics:
            return None
        return Var(
            name="this", type=info.name.rsplit("::", 1)[-1], pointers=1, scope="param"
        )

    def user_reductions(self) -> tuple[UserReduction, ...]:
        """The classes a `declare reduction` can sum (see cpp_reducers)."""
        return tuple(self.scope.reducers.values())

    def unreduced_reasons(self) -> tuple[tuple[str, str], ...]:
        """Each other class's `CLASS::operator+=` and why it is no such sum."""
        return tuple(sorted(self.unreduced.items()))

    def no_default(self) -> frozenset[str]:
        """The classes with constructors but none that takes no argument."""
        return frozenset(
            name
            for name, info in self.scope.classes.items()
            if info.constructors and not info.default_constructor
        )

    def class_types(self) -> TypeTable:
        """The classes' data members as struct fields (see `member_var`)."""
        # A class template's members read with the types every instance binds.
        scopes = {n: self._bound_scope(b) for n, b in self.class_bindings.items()}
        structs = tuple(
            (
                name,
                tuple(
                    _member(m, t, c, scopes.get(name, self.scope))
                    for m, t in c.fields.items()
                ),
            )
            for name, c in self.scope.classes.items()
        )
        # A union's key names no `union`: listed, so no two members are apart.
        classes = self.scope.classes
        instances = instance_texts(self.root, set(self.class_bindings))
        return TypeTable(
            typedefs=(
                *((text, name, "") for text, name in sorted(instances)),
                *scalar_aliases(self.scope),
            ),
            structs=structs,
            unions=frozenset(n for n, c in classes.items() if c.overlaid),
            holders=frozenset(n for n, c in classes.items() if c.holder),
        )

    def walk(
        self,
        definition: Definition,
        macros: MacroTable,
        params: frozenset[str],
        inactive: frozenset[int],
        env: dict[str, str],
        references: frozenset[str],
        globals_env: dict[str, str],
    ) -> CppFunctionWalk:
        """The walk of one function body, its default arguments walked first."""
        walk = CppFunctionWalk(
            definition.name,
            macros,
            params,
            inactive,
            scope=self._scope_for(definition.node),
            env={**globals_env, **env},
            references=references,
            class_name=definition.class_name,
            object_refs=self._object_refs.get(definition.node.start_byte, frozenset()),
        )
        plain = definition.name.rsplit("::", 1)[-1]
        walk.default_arguments(self.defaults.get(plain, ()))
        return walk

    def globals_env(
        self, decls: list[Node], macros: MacroTable
    ) -> tuple[dict[str, str], list[Var]]:
        """The globals' C++ types, and their Vars as the analysis reads them."""
        env: dict[str, str] = {}
        out: list[Var] = []
        for node in decls:
            base = node.child_by_field_name("type")
            kinds: dict[str, tuple[str, bool]] = {}
            for declarator in node.children_by_field_name("declarator"):
                if declarator.type == "function_declarator":
                    continue
                target = declared_name(declarator)
                if target is not None:
                    kinds[node_text(target)] = (
                        declarator_type(base, declarator),
                        is_reference(declarator),
                    )
            for var in declared_vars(node, "global", macros):
                text, reference = kinds.get(var.name, (var.type, False))
                env[var.name] = text
                kind = classify(text, self.scope)
                out.append(
                    cpp_var(var, kind, reference, self.scope)
                    if kind.kind is not TypeKind.CLASS
                    else var
                )
        return env, out

    def add_headers(
        self,
        globals_: tuple[Var, ...],
        typedefs: tuple[tuple[str, str, str], ...],
        env: dict[str, str],
        code: str = "",
    ) -> None:
        """What the project's headers declare: globals' types, typedefs, classes."""
        for name, base, levels in typedefs:
            self.scope.aliases.setdefault(name, base + "*" * len(levels))
        if code:
            self.scope.merge(header_scope(code))
        for var in globals_:
            env.setdefault(var.name, var.type + "*" * len(var.shape))
