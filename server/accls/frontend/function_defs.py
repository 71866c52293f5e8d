"""A C or C++ function definition to a Function and its loops."""

from __future__ import annotations

import re
from dataclasses import replace

from tree_sitter import Node

from accls.frontend.cpp_parse import CppUnit, Definition
from accls.frontend.cpp_walker import CppFunctionWalk
from accls.frontend.decls import call_arity, declared_vars, is_static
from accls.frontend.exprs import node_text, span_of
from accls.frontend.freshness import mark_fresh
from accls.frontend.loop_model import Loop
from accls.frontend.loops import build_loops
from accls.frontend.macros import MacroTable
from accls.frontend.model import Function, Var
from accls.frontend.nested_functions import nested_names
from accls.frontend.pointer_calls import (
    pointer_names,
    through_pointers,
    unparsed_names,
)
from accls.frontend.pointer_slots import Slot
from accls.frontend.typetable import TypeTable
from accls.frontend.walker import FunctionWalk, attached_pragmas

__all__ = ["function_definition", "function_name"]


def function_name(node: Node) -> tuple[str | None, Node | None]:
    """The name a definition gives its function, and its function declarator."""
    if node.type == "ERROR":
        decl = next((c for c in node.children if c.type == "function_declarator"), None)
        name = decl.child_by_field_name("declarator") if decl is not None else None
        return (node_text(name) if name is not None else None), decl
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    if decl is None:
        return None, None
    name = decl.child_by_field_name("declarator")
    while name is not None and name.type not in ("identifier",):
        name = name.child_by_field_name("declarator")
    return (node_text(name) if name is not None else None), decl


def function_definition(
    node: Node,
    macros: MacroTable,
    globals_: tuple[Var, ...],
    inactive: frozenset[int] = frozenset(),
    wrappers: frozenset[str] = frozenset(),
    cxx: tuple[CppUnit, Definition, dict[str, str]] | None = None,
    types: TypeTable | None = None,
    pointers: frozenset[str] = frozenset(),
    slots: frozenset[Slot] = frozenset(),
    borrows: frozenset[tuple[str, int]] = frozenset(),
    makers: frozenset[str] = frozenset(),
    steady: frozenset[tuple[str, int]] = frozenset(),
    fillers: frozenset[tuple[str, int]] = frozenset(),
) -> tuple[Function, tuple[Loop, ...]] | None:
    """The function a definition defines, and its loops.

    `pointers` names the file's global function pointers; `borrows`, the calls
    that never keep a pointer passed at a position.
    """
    name, declarator = function_name(node)
    body = node if node.type == "ERROR" else node.child_by_field_name("body")
    if body is None:
        return None
    params: list[Var] = []
    plist = declarator.child_by_field_name("parameters") if declarator else None
    if cxx is not None:
        unit, definition, globals_env = cxx
        name = definition.name
        params, env, references = unit.params(node, macros, definition)
        walk: FunctionWalk = unit.walk(
            definition,
            macros,
            frozenset(p.name for p in params),
            inactive,
            env,
            references,
            globals_env,
        )
    elif plist is not None:
        for param in plist.named_children:
            if param.type == "parameter_declaration":
                params.extend(declared_vars(param, "param", macros))
        if any(p.type == "identifier" for p in plist.named_children):
            # A K&R definition declares its parameters between `)` and the body.
            for decl in node.children:
                if decl.type == "declaration":
                    params.extend(declared_vars(decl, "param", macros))
    if cxx is None:
        walk = FunctionWalk(name, macros, frozenset(p.name for p in params), inactive)
    if isinstance(walk, CppFunctionWalk):
        walk.member_initializers(node)  # `: m(args)` runs before the body
    else:  # GNU nested functions, known before a call ahead of the definition
        walk.nested_functions |= nested_names(body)
    walk.statement(body)
    binding = cxx[0].bound(node) if cxx is not None else {}
    if binding:
        params = _bind_types(params, binding)
    walk.substitute(params, globals_, types)
    # A call of a variable calls what it holds, whatever function shares its name.
    knr = [c for c in node.children if c.type == "declaration"]  # K&R parameters
    held = pointer_names([*(plist.named_children if plist else ()), *knr, body])
    # A local or parameter hides the file's function of its name (C's and C++'s
    # scope rules); C++ reads the calls of its lambdas and functors itself, so
    # only the plain-name calls it left are renamed. A declaration the parser
    # could not read may hide one too.
    held |= {p.name for p in params} | {v.name for v in walk.decls}
    held |= unparsed_names(node)
    through_pointers(walk.calls, held | pointers)
    outer = frozenset(g.name for g in globals_ if g.is_array)
    locals_ = tuple(
        mark_fresh(
            body,
            walk.decls,
            frozenset(p.name for p in params),
            wrappers,
            slots,
            outer,
            frozenset(b for b in borrows if b[0] not in held),
            makers - held,
            frozenset(s for s in steady if s[0] not in held),
            frozenset(f for f in fillers if f[0] not in held),
        )
    )
    if binding:
        locals_ = tuple(_bind_types(list(locals_), binding))
    # A static local keeps its value between calls: writing it is a side effect.
    statics = {v.name for v in locals_ if v.static}
    local_names = {v.name for v in locals_} - statics
    param_arrays = {p.name for p in params if p.is_array}
    global_names = {g.name for g in globals_}
    nonlocal_writes: set[str] = set()
    for ref in walk.refs:
        if not ref.is_write:
            continue
        base = ref.name.split("->")[0].split(".")[0]
        if base in local_names and not (ref.member and "->" in ref.name):
            continue
        if cxx is not None and base not in {p.name for p in params}:
            # C++: an undeclared name is a member, a namespace's or a header's global.
            nonlocal_writes.add(ref.name)
        elif (
            base in global_names
            or base in statics
            or base in param_arrays
            or ref.deref
            or "->" in ref.name
        ):
            nonlocal_writes.add(ref.name)
    if cxx is not None and cxx[1].class_name is not None:
        # A method reads and writes its object: not summarised yet.
        nonlocal_writes.add("this")
    this = bool(params) and params[0].name == "this"
    arity = call_arity(plist, this=this)
    declared = _class_declared(cxx, node, arity[1], this)
    function = Function(
        name=name or "<anonymous>",
        span=span_of(node),
        params=tuple(params),
        locals=locals_,
        writes_nonlocal=tuple(sorted(nonlocal_writes)),
        calls=tuple(sorted({c.name for c, _ in walk.calls})),
        pragmas=attached_pragmas(node),
        refs=tuple(walk.refs),
        exits=tuple(walk.exits),
        call_sites=tuple(c for c, _ in walk.calls),
        block_decls=tuple(walk.block_decls),
        static=is_static(node),
        min_args=arity[0] if declared is None else min(arity[0], declared),
        max_args=arity[1],
        in_class=cxx is not None and _in_class(node),
        class_declared=declared is not None,
    )
    return function, build_loops(walk, name, globals_)


def _bind_types(variables: list[Var], binding: dict[str, str]) -> list[Var]:
    """Variables of a template parameter's type typed as the type it is bound to.

    A total `T s` of an instantiation with `float` is a `float` total.
    """
    words = re.compile(r"\b(" + "|".join(map(re.escape, binding)) + r")\b")
    return [
        replace(v, type=words.sub(lambda m: binding[m.group(1)], v.type))
        for v in variables
    ]


def _in_class(node: Node) -> bool:
    """Whether a definition is written in a class body (its only declaration)."""
    parent = node.parent
    if parent is not None and parent.type == "template_declaration":
        parent = parent.parent
    return parent is not None and parent.type == "field_declaration_list"


def _class_declared(
    cxx: tuple[CppUnit, Definition, dict[str, str]] | None,
    node: Node,
    most: int | None,
    this: bool,
) -> int | None:
    """The fewest arguments a call of a method defined outside its class passes.

    Read from its declarations in the class, when this file holds the class:
    those taking as many parameters as the definition. None for anything else
    (a free function, a header's class, a method defined in its class).
    """
    if cxx is None or most is None or _in_class(node):
        return None
    unit, definition, _ = cxx
    cls = definition.class_name
    info = unit.scope.classes.get(cls) if cls in unit.own_classes else None
    if info is None:
        return None
    count = most - int(this)
    plain = definition.name.rsplit("::", 1)[-1]
    fewest = [
        counts.start
        for counts, _, _ in info.signatures.get(plain, [])
        if counts.stop - 1 == count
    ]
    return min(fewest) + int(this) if fewest else None
