"""The Fortran front end: free or fixed form text to the same SourceFile model as C."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import tree_sitter_fortran
from tree_sitter import Language, Node, Parser

from accls.frontend.exprs import node_text, span_of
from accls.frontend.fortran_decls import FDecl, declarations
from accls.frontend.fortran_exprs import name_of
from accls.frontend.fortran_form import normalized
from accls.frontend.fortran_loops import build_fortran_loops
from accls.frontend.fortran_modules import defined_modules, module_files, used_modules
from accls.frontend.fortran_refs import Procedure, RefRecorder
from accls.frontend.fortran_walk import UnitWalk
from accls.frontend.model import Function, Loop, Region, SourceFile, Span, Var

__all__ = ["module_sources", "parse_fortran"]

_UNITS = frozenset({"program", "module", "subroutine", "function", "submodule"})
_HEADS = frozenset(
    {
        "program_statement",
        "module_statement",
        "subroutine_statement",
        "function_statement",
        "submodule_statement",
        "internal_procedures",
        "end_program_statement",
        "end_module_statement",
        "end_subroutine_statement",
        "end_function_statement",
        "end_submodule_statement",
        "module_procedure",
    }
)


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_fortran.language()))


@dataclass(frozen=True, slots=True)
class _Unit:
    node: Node
    name: str
    kind: str
    dummies: tuple[str, ...]
    decls: dict[str, FDecl]
    host: tuple[_Unit, ...]  # enclosing units, outermost first
    pure: bool


_UNIT_HEADS = {
    "program_statement": "program",
    "module_statement": "module",
    "subroutine_statement": "subroutine",
    "function_statement": "function",
}


def _head(node: Node) -> Node | None:
    return next((c for c in node.named_children if c.type in _UNIT_HEADS), None)


def _unit(node: Node, host: tuple[_Unit, ...]) -> _Unit:
    head = _head(node)
    name = ""
    dummies: tuple[str, ...] = ()
    pure = False
    if head is not None:
        label = next((c for c in head.named_children if c.type == "name"), None)
        name = name_of(label) if label is not None else ""
        params = next((c for c in head.named_children if c.type == "parameters"), None)
        if params is not None:
            dummies = tuple(
                name_of(c) for c in params.named_children if c.type == "identifier"
            )
        qualifiers = " ".join(
            node_text(c).lower()
            for c in head.named_children
            if c.type == "procedure_qualifier"
        )
        pure = "pure" in qualifiers or "elemental" in qualifiers
    statements = [c for c in node.named_children if c.type not in _HEADS]
    scope = "global" if node.type == "module" else "local"
    decls = declarations(statements, frozenset(dummies), scope)
    kind = (
        node.type
        if node.type in _UNITS
        else _UNIT_HEADS.get(head.type if head else "", "")
    )
    return _Unit(node, name or "<main>", kind, dummies, decls, host, pure)


def _units(root: Node) -> list[_Unit]:
    """Every program unit and contained procedure, hosts before what they contain."""
    out: list[_Unit] = []

    def visit(node: Node, host: tuple[_Unit, ...]) -> None:
        unit = _unit(node, host)
        out.append(unit)
        for child in node.named_children:
            if child.type == "internal_procedures":
                for proc in child.named_children:
                    if proc.type in _UNITS:
                        visit(proc, (*host, unit))

    for node in root.named_children:
        if node.type in _UNITS:
            visit(node, ())
        elif node.type == "ERROR" and _head(node) is not None:
            # A unit whose end did not parse (an unterminated `do`): its statements
            # still parse, so it is walked; the loop without an end is not modelled.
            visit(node, ())
    return out


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
    if "pointer" in decl.attrs and var.dims:
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
    unit: _Unit, modules: dict[str, _Unit], storage: bool = False
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


def _procedures(units: list[_Unit], foreign: bool = False) -> dict[str, Procedure]:
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
        out.setdefault(
            unit.name,
            Procedure(unit.name, unit.dummies, intents, unit.pure, arrays, foreign),
        )
    return out


_MAX_MODULE_FILES = 32  # other files read for one file's `use`s


@lru_cache(maxsize=64)
def _file_units(path: str, mtime: int, size: int) -> tuple[_Unit, ...]:
    """The program units of another file (cached by its stamp)."""
    del mtime, size  # the cache key
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
    except OSError:
        return ()
    form = normalized(text, path, ())
    root = _parser().parse(form.text.encode("utf-8", errors="surrogateescape"))
    return tuple(
        replace(
            unit,
            decls={
                k: replace(d, var=replace(d.var, span=None))
                for k, d in unit.decls.items()
            },
        )
        for unit in _units(root.root_node)
    )


def _foreign(
    text: str, own: set[str], path: str | None, include_dirs: tuple[str, ...]
) -> tuple[dict[str, _Unit], list[_Unit], tuple[str, ...]]:
    """The modules `use`d but not defined here, from the files that define them.

    Returns the modules by name, every unit of their files (for the procedures)
    and the modules no file was found for.
    """
    modules, units, missing, _ = _foreign_files(text, own, path, include_dirs)
    return modules, units, tuple(dict.fromkeys(m for m in missing if m not in modules))


def module_sources(text: str, include_dirs: Sequence[str]) -> tuple[str, ...]:
    """The files defining the modules `text` uses, those they use first (to build)."""
    own = set(defined_modules(text))
    return tuple(reversed(_foreign_files(text, own, None, tuple(include_dirs))[3]))


def _foreign_files(
    text: str, own: set[str], path: str | None, include_dirs: tuple[str, ...]
) -> tuple[dict[str, _Unit], list[_Unit], list[str], list[str]]:
    modules: dict[str, _Unit] = {}
    units: list[_Unit] = []
    missing: list[str] = []
    wanted = [m for m in used_modules(text) if m not in own]
    read: dict[str, None] = {}
    while wanted and len(read) < _MAX_MODULE_FILES:
        files = module_files(wanted, path, include_dirs)
        missing.extend(m for m in wanted if m not in files)
        after: list[str] = []
        for file in dict.fromkeys(files.values()):
            if file in read or len(read) >= _MAX_MODULE_FILES:
                continue
            read[file] = None
            try:
                info = os.stat(file)
            except OSError:
                continue
            found = _file_units(file, info.st_mtime_ns, info.st_size)
            units.extend(found)
            for unit in found:
                if unit.kind == "module":
                    modules.setdefault(unit.name, unit)
            for unit in found:
                after.extend(_uses(unit))
        known = own | modules.keys() | set(missing)
        wanted = [m for m in dict.fromkeys(after) if m not in known]
    return modules, units, missing, list(read)


def _uses(unit: _Unit) -> list[str]:
    names: list[str] = []
    for use in unit.node.named_children:
        if use.type == "use_statement":
            module = next(
                (c for c in use.named_children if c.type == "module_name"), None
            )
            if module is not None:
                names.append(name_of(module))
    return names


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
    unit: _Unit,
    modules: dict[str, _Unit],
    procedures: dict[str, Procedure],
    storage: bool = False,
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
    recorder = RefRecorder(scope, procedures)
    walk = UnitWalk(recorder)
    walk.block([c for c in unit.node.named_children if c.type not in _HEADS])
    params = tuple(
        scope[d].var if d in scope else Var(name=d, type="", scope="param")
        for d in unit.dummies
    )
    locals_ = tuple(
        d.var
        for k, d in scope.items()
        if d.var.scope == "local" and k not in unit.dummies
    )
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
        i: Region(directive=r.directive, span=walk.region_span(r))
        for i, r in enumerate(walk.regions)
    }
    loops = build_fortran_loops(walk, unit.name, outside, regions)
    function = Function(
        name=unit.name,
        span=span_of(unit.node),
        params=params,
        locals=locals_,
        writes_nonlocal=tuple(writes),
        calls=tuple(sorted({c.name for c in recorder.calls})),
        pragmas=tuple(walk.unit_pragmas),
        refs=tuple(recorder.refs),
        exits=tuple(recorder.exits),
        call_sites=tuple(recorder.calls),
    )
    return function, loops, walk


def parse_fortran(
    text: str, path: str | None = None, include_dirs: Sequence[str] = ()
) -> SourceFile:
    """Parse Fortran text into the SourceFile model the analysis reads."""
    form = normalized(text, path, tuple(include_dirs))
    data = form.text.encode("utf-8", errors="surrogateescape")
    root = _parser().parse(data).root_node
    units = _units(root)
    modules = {u.name: u for u in units if u.kind == "module"}
    foreign, others, unfound = _foreign(
        form.text, set(modules), path, tuple(include_dirs)
    )
    modules = {**foreign, **modules}
    procedures = {**_procedures(others, foreign=True), **_procedures(units)}
    # `equivalence` (here or in a used module's file) makes names share storage.
    storage = not any(
        "equivalence" in node_text(u.node).lower() for u in (*units, *foreign.values())
    )
    functions: list[Function] = []
    nests: list[Loop] = []
    constructs: list[Region] = []
    branches = []
    unread: list[tuple[Span, str]] = []
    for unit in units:
        if unit.kind == "module":
            continue
        function, loops, walk = _function(unit, modules, procedures, storage)
        functions.append(function)
        nests.extend(loops)
        constructs.extend(walk.constructs)
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
