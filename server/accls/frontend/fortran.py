"""The Fortran front end: free or fixed form text to the same SourceFile model as C."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from tree_sitter import Node

from accls.frontend.exprs import node_text, span_of
from accls.frontend.fortran_decls import FDecl
from accls.frontend.fortran_exprs import name_of
from accls.frontend.fortran_foreign import foreign_modules, module_sources
from accls.frontend.fortran_form import normalized
from accls.frontend.fortran_loops import build_fortran_loops
from accls.frontend.fortran_operations import defined_operations
from accls.frontend.fortran_refs import Procedure, RefRecorder
from accls.frontend.fortran_types import Components, derived_types
from accls.frontend.fortran_units import HEADS, Unit, fortran_parser, program_units
from accls.frontend.fortran_walk import UnitWalk
from accls.frontend.loop_model import Loop
from accls.frontend.model import Function, Region, Span, Var
from accls.frontend.source_file import SourceFile

__all__ = ["module_sources", "parse_fortran"]


def _as_model(decl: FDecl, storage: bool = False) -> Var:
    """The Var the analysis reads: pointer arrays as pointers, dummies as `restrict`.

    `storage`: no `equivalence` shares storage between names, so an array that
    is neither `pointer` nor `target` is reached through its own name only.
    """
    var = replace(
        decl.var,
        lower_bounds=tuple(
            low.render() if low is not None else "" for low in reversed(decl.lows)
        ),
    )
    if "target" in decl.attrs:
        # A pointer may be associated with a `target` anywhere (`p => x(2:)`,
        # a callee's dummy): its storage is reachable through other names.
        var = replace(var, address_taken=True)
    if var.dims and (
        "pointer" in decl.attrs or ("target" in decl.attrs and var.scope == "param")
    ):
        # A `target` dummy may share its actual with another `target` dummy or
        # a pointer (the standard's exception to its aliasing rule): a pointer.
        return replace(var, dims=(), pointers=len(var.dims))
    if var.dims and not decl.assumed_size:
        # Deferred and assumed shape: the object knows its extents at run time.
        rank = len(var.dims)
        var = replace(
            var,
            dims=tuple(
                d if d is not None else f"size({var.name}, {rank - k})"
                for k, d in enumerate(var.dims)
            ),
            shaped=var.scope == "param",
        )
    if var.scope == "param" and var.dims and "target" not in decl.attrs:
        # The standard's rule: a dummy that is modified is not accessed through
        # any other name during the call, which is what `restrict` promises.
        return replace(var, restrict=True)
    if storage and var.dims and "target" not in decl.attrs:
        # No pointer may be associated with an object that is not a `target`.
        return replace(var, restrict=True)
    return var


def _visible(
    unit: Unit, modules: dict[str, Unit], storage: bool = False
) -> dict[str, FDecl]:
    """Declarations in scope: used modules, hosts (outermost first), then its own."""
    scope: dict[str, FDecl] = {}
    chain = (*unit.host, unit)
    for holder in chain:
        for use in holder.node.named_children:
            if use.type != "use_statement":
                continue
            module = next(
                (c for c in use.named_children if c.type == "module_name"), None
            )
            used = modules.get(name_of(module)) if module is not None else None
            if used is not None:
                scope.update(
                    (k, replace(v, var=replace(v.var, scope="global")))
                    for k, v in used.decls.items()
                )
    for holder in unit.host:
        scope.update(
            (k, replace(v, var=replace(v.var, scope="global")))
            for k, v in holder.decls.items()
        )
    scope.update(unit.decls)
    return {k: replace(v, var=_as_model(v, storage)) for k, v in scope.items()}


def _procedures(units: list[Unit], foreign: bool = False) -> dict[str, Procedure]:
    out: dict[str, Procedure] = {}
    for unit in units:
        if unit.kind not in ("subroutine", "function"):
            continue
        if foreign and not (unit.host and unit.host[-1].kind == "module"):
            continue  # another file's own procedures are not `use`d
        intents = tuple(
            unit.decls[d].intent if d in unit.decls else "" for d in unit.dummies
        )
        arrays = tuple(d in unit.decls and unit.decls[d].is_array for d in unit.dummies)
        reads: tuple[str, ...] = ()
        for holder in unit.host if foreign else ():
            mentioned = _mentioned(holder)
            reads += tuple(
                name
                for name, decl in holder.decls.items()
                if "parameter" not in decl.attrs and name in mentioned
            )
        out.setdefault(
            unit.name,
            Procedure(
                unit.name, unit.dummies, intents, unit.pure, arrays, foreign, reads
            ),
        )
    return out


def _mentioned(module: Unit) -> frozenset[str]:
    """The names a module's procedures mention (its own declarations aside)."""
    names: set[str] = set()
    stack = [c for c in module.node.named_children if c.type != "variable_declaration"]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            names.add(name_of(node))
        stack.extend(node.named_children)
    return frozenset(names)


def _errors(root: Node) -> list[Span]:
    found: list[Span] = []
    stack = [root]
    while stack and len(found) < 1000:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            found.append(span_of(node))
            continue
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return sorted(found, key=lambda s: s.start_byte)


def _function(
    unit: Unit,
    modules: dict[str, Unit],
    procedures: dict[str, Procedure],
    storage: bool = False,
    types: Components | None = None,
    operations: dict[str, tuple[str, ...]] | None = None,
) -> tuple[Function, tuple[Loop, ...], UnitWalk]:
    scope = _visible(unit, modules, storage)
    if unit.kind != "program":
        # A `save` local (or one initialised where declared) outlives each call:
        # every call shares it, as the callers share a global.
        scope = {
            k: replace(d, var=replace(d.var, scope="global"))
            if d.var.static and d.var.scope == "local"
            else d
            for k, d in scope.items()
        }
    recorder = RefRecorder(scope, procedures, types or {}, operations or {})
    walk = UnitWalk(recorder)
    walk.block([c for c in unit.node.named_children if c.type not in HEADS])
    params = tuple(
        scope[d].var if d in scope else Var(name=d, type="", scope="param")
        for d in unit.dummies
    )
    locals_ = tuple(
        d.var
        for k, d in scope.items()
        if d.var.scope == "local" and k not in unit.dummies
    )
    result = _result_name(unit)
    if result and result not in scope:
        # An undeclared result (`sq = x*x`, implicitly typed) is the function's
        # own variable, as a declared one is: a store to it writes nothing outside.
        locals_ = (*locals_, Var(name=result, type="", scope="local"))
    outside = frozenset(
        k for k, d in scope.items() if d.var.scope in ("global", "param")
    ) | frozenset(unit.dummies)
    local_names = {v.name for v in locals_}
    writes = sorted(
        {
            r.name
            for r in recorder.refs
            if r.is_write and r.name.split(".")[0] not in local_names
        }
    )
    regions = {
        i: Region(directive=r.directive, span=walk.dirs.region_span(r))
        for i, r in enumerate(walk.dirs.regions)
    }
    loops = build_fortran_loops(walk, unit.name, outside, regions)
    function = Function(
        name=unit.name,
        span=span_of(unit.node),
        params=params,
        locals=locals_,
        writes_nonlocal=tuple(writes),
        calls=tuple(sorted({c.name for c in recorder.calls})),
        pragmas=tuple(walk.dirs.unit_pragmas),
        refs=tuple(recorder.refs),
        exits=tuple(recorder.exits),
        call_sites=tuple(recorder.calls),
    )
    return function, loops, walk


def _result_name(unit: Unit) -> str:
    """A function's result variable: its `result(r)` name, else its own name."""
    if unit.kind != "function":
        return ""
    head = next(
        (c for c in unit.node.named_children if c.type == "function_statement"), None
    )
    found = (
        next((c for c in head.named_children if c.type == "function_result"), None)
        if head is not None
        else None
    )
    named = (
        next((c for c in found.named_children if c.type == "identifier"), None)
        if found is not None
        else None
    )
    return name_of(named) if named is not None else unit.name


def _equivalenced(root: Node, foreign: Iterable[Unit]) -> frozenset[str]:
    """The names that `equivalence` lays over other names' storage."""
    names: set[str] = set()
    stack = [root, *(u.node for u in foreign)]
    while stack:
        node = stack.pop()
        if node.type != "equivalence_set":
            stack.extend(node.named_children)
            continue
        for item in node.named_children:
            head = item.named_children[0] if item.type == "call_expression" else item
            if head is not None and head.type == "identifier":
                names.add(name_of(head))
    return frozenset(names)


def _shares_storage(nest: Loop, shared: frozenset[str]) -> str:
    """Why the nest is left alone: it writes a name `equivalence` shares, or "".

    A private, reduction or lastprivate copy of such a name is storage of its
    own, so the names laid over it would no longer see what the loop writes.
    """
    for ref in nest.refs:
        name = ref.name.split(".")[0]
        if ref.is_write and name in shared:
            return (
                f"`{name}` shares its storage with another name (`equivalence`): "
                "a private copy of it would split them"
            )
    return ""


def parse_fortran(
    text: str, path: str | None = None, include_dirs: Sequence[str] = ()
) -> SourceFile:
    """Parse Fortran text into the SourceFile model the analysis reads."""
    form = normalized(text, path, tuple(include_dirs))
    data = form.text.encode("utf-8", errors="surrogateescape")
    root = fortran_parser().parse(data).root_node
    units = program_units(root)
    modules = {u.name: u for u in units if u.kind == "module"}
    foreign, others, unfound = foreign_modules(
        form.text, set(modules), path, tuple(include_dirs)
    )
    modules = {**foreign, **modules}
    procedures = {**_procedures(others, foreign=True), **_procedures(units)}
    # `equivalence` (here or in a used module's file) makes names share storage.
    storage = not any(
        "equivalence" in node_text(u.node).lower() for u in (*units, *foreign.values())
    )
    shared = _equivalenced(root, foreign.values())
    types = derived_types([root, *(u.node for u in foreign.values())])
    operations = defined_operations([root, *(u.node for u in foreign.values())])
    functions: list[Function] = []
    nests: list[Loop] = []
    constructs: list[Region] = []
    branches = []
    unread: list[tuple[Span, str]] = []
    for unit in units:
        if unit.kind == "module":
            continue
        function, loops, walk = _function(
            unit, modules, procedures, storage, types, operations
        )
        functions.append(function)
        for nest in loops:
            why = _shares_storage(nest, shared)
            if why:
                unread.append((nest.span, why))
            else:
                nests.append(nest)
        constructs.extend(walk.dirs.constructs)
        branches.extend(walk.branches)
        unread.extend(walk.unread)
    globals_: dict[str, Var] = {}
    for unit in units:
        for key, decl in unit.decls.items():
            saved = decl.var.static and unit.kind != "program"
            if decl.var.scope == "global" or decl.common or saved:
                globals_.setdefault(key, _as_model(decl, storage))
    for unit in foreign.values():
        for key, decl in unit.decls.items():
            # Declared in another file: no place in this text.
            globals_.setdefault(key, _as_model(decl, storage))
    missing = form.missing
    return SourceFile(
        path=path or "<stdin>",
        text=text,
        nests=tuple(nests),
        functions=tuple(functions),
        globals=tuple(globals_.values()),
        macros=(),
        errors=tuple(_errors(root)),
        missing_headers=tuple(dict.fromkeys(missing)),
        preprocessor_problem=form.problem,
        unread_loops=tuple(unread),
        constructs=tuple(
            sorted(constructs, key=lambda r: (r.span.start_byte, -r.span.end_byte))
        ),
        branches=tuple(sorted(branches, key=lambda b: b.span.start_byte)),
        language="fortran",
        notes=form.notes,
        missing_modules=unfound,
    )
