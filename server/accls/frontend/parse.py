"""The front end's entry point: C text to a SourceFile."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from tree_sitter import Node

from accls.frontend.allocators import allocator_wrappers, row_table_wrappers
from accls.frontend.borrowers import borrowing_parameters
from accls.frontend.constructs import find_constructs
from accls.frontend.cpp_files import is_cpp
from accls.frontend.cpp_parse import CppUnit, Definition
from accls.frontend.decls import declared_vars
from accls.frontend.exprs import span_of
from accls.frontend.field_stores import field_events
from accls.frontend.fortran import parse_fortran
from accls.frontend.fortran_form import is_fortran
from accls.frontend.function_defs import function_definition, function_name
from accls.frontend.global_rows import fresh_row_globals, with_global_rows
from accls.frontend.incremental import IncrementalTree
from accls.frontend.lexical import blank_unterminated_comment, unterminated_comment
from accls.frontend.loop_model import Loop
from accls.frontend.macro_blocks import MACRO_BLOCK, macro_blocks
from accls.frontend.macros import collect_macros, mask_qualifier_macros
from accls.frontend.model import Function, Span, Var
from accls.frontend.pointer_calls import pointer_names
from accls.frontend.pointer_slots import pointer_slots
from accls.frontend.row_fillers import row_filler_parameters
from accls.frontend.row_steady import row_steady_parameters
from accls.frontend.skipped_lines import blank_lines
from accls.frontend.source_file import SourceFile
from accls.frontend.translation_unit import HeaderContext
from accls.frontend.tsparser import parse_bytes, parse_cpp_bytes, top_level_nodes
from accls.frontend.types import collect_types
from accls.frontend.unbraced_pragmas import mask_unbraced_pragmas

__all__ = ["parse_source"]


def _top_level(root: Node) -> tuple[list[Node], list[Node]]:
    """Function definitions and global declarations, looking into #if blocks."""
    functions: list[Node] = []
    decls: list[Node] = []
    for node in top_level_nodes(root):
        if node.type == "function_definition":
            functions.append(node)
        elif node.type == "ERROR" and any(
            c.type == "function_declarator" for c in node.children
        ):
            # Preprocessor tricks can wrap a whole function in an ERROR node; its
            # statements still parse, so it is walked like a function.
            functions.append(node)
        elif node.type == "declaration":
            decls.append(node)
    return functions, decls


def _error_nodes(root: Node) -> list[Node]:
    found: list[Node] = []
    stack = [root]
    while stack and len(found) < 1000:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            found.append(node)
            continue
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return sorted(found, key=lambda n: n.start_byte)


_MAX_STRAY_NODES = 200_000
_LOOSE = frozenset({"compound_statement", "expression_statement", "for_statement"})


def _stray_loops(errors: list[Node], known: set[int]) -> tuple[Span, ...]:
    """`for` keywords in unparsed code that are not the loops the walk read."""
    found: list[Span] = []
    budget = _MAX_STRAY_NODES
    for error in errors:
        stack = [error]
        while stack and budget > 0:
            node = stack.pop()
            budget -= 1
            if node.type == "for":
                parent = node.parent
                owner = parent.start_byte if parent is not None else -1
                if (
                    parent is None
                    or parent.type != "for_statement"
                    or owner not in known
                ):
                    found.append(span_of(node))
                continue
            stack.extend(node.children)
    return tuple(sorted(set(found), key=lambda s: s.start_byte))


def _skipped_loops(root: Node, inactive: frozenset[int]) -> tuple[Span, ...]:
    """`for` keywords on the lines of #if branches the build does not compile."""
    if not inactive:
        return ()
    found: list[Span] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "for" and node.start_point.row + 1 in inactive:
            found.append(span_of(node))
        stack.extend(node.children)
    return tuple(sorted(found, key=lambda s: s.start_byte))


def parse_source(
    text: str,
    path: str | None = None,
    include_dirs: Sequence[str] = (),
    *,
    tree: IncrementalTree | None = None,
    context: HeaderContext | None = None,
    language: str | None = None,
) -> SourceFile:
    """Parse C text and extract every loop nest, function and declaration.

    `tree`, an editor's incrementally re-parsed tree of exactly `text`, saves the
    parse when no macro had to be masked (masking changes the bytes). `context`,
    what the real preprocessor made of the buffer's directives, supplies the
    macros and the declarations of the project's headers; without it macros are
    read from the file and the headers it names, and headers' globals are unseen.
    `language` ("c", "cpp") overrides the one the extension of `path` names.
    """
    if is_fortran(path):
        return parse_fortran(text, path, include_dirs)
    cpp = is_cpp(path, language)
    usable = context is not None and context.usable
    macros = (
        context.macros
        if context is not None and usable
        else collect_macros(text, path, include_dirs)
    )
    masked = mask_qualifier_macros(text, macros)
    data = masked.encode("utf-8", errors="surrogateescape")
    comment = unterminated_comment(data)
    data = blank_unterminated_comment(data) if comment is not None else data
    data = mask_unbraced_pragmas(data)
    reuse = tree is not None and tree.data == data and not cpp
    if cpp:
        parsed = parse_cpp_bytes(data)
    else:
        parsed = tree.tree if reuse and tree is not None else parse_bytes(data)
    root = parsed.root_node
    inactive = context.inactive if context is not None and usable else frozenset()
    skipped = _skipped_loops(root, inactive)
    if root.has_error and inactive:
        # Code in branches the build skips may be what breaks the parse.
        blanked = blank_lines(data, inactive)
        again = parse_cpp_bytes(blanked) if cpp else parse_bytes(blanked)
        if not again.root_node.has_error:
            parsed, root = again, again.root_node
    unit = CppUnit(root, data) if cpp else None
    definitions: dict[int, Definition] = {}
    if unit is not None:
        found, decl_nodes = unit.top_level()
        definitions = {d.node.start_byte: d for d in found}
        fn_nodes = [d.node for d in found]
    else:
        fn_nodes, decl_nodes = _top_level(root)
    fn_nodes = [n for n in fn_nodes if n.start_point.row + 1 not in inactive]
    decl_nodes = [n for n in decl_nodes if n.start_point.row + 1 not in inactive]
    globals_: list[Var] = []
    globals_env: dict[str, str] = {}
    if unit is not None:
        globals_env, globals_ = unit.globals_env(decl_nodes, macros)
    for decl in decl_nodes if unit is None else ():
        globals_.extend(declared_vars(decl, "global", macros))
    own_globals = tuple(globals_)
    if context is not None:
        # The buffer's own declarations shadow the headers' ones of the same name.
        mine = {g.name for g in globals_}
        globals_.extend(g for g in context.globals if g.name not in mine)
    frozen_globals = tuple(globals_)
    types = collect_types(root, macros)
    if context is not None:
        types = types.merged(context.types)
        if unit is not None:
            unit.add_headers(
                context.globals, context.types.typedefs, globals_env, context.code
            )
    if unit is not None:
        types = types.merged(unit.class_types())
    headers = (
        _header_source(context.code, context.places, "cpp" if cpp else "c")
        if context is not None and usable and context.code
        else None
    )
    # C only: a C++ call may pick another overload of the name.
    borrows = (
        frozenset()
        if cpp
        else borrowing_parameters(
            fn_nodes, macros, headers.borrowers if headers is not None else frozenset()
        )
    )
    wrappers = allocator_wrappers(
        fn_nodes,
        macros,
        headers.allocators if headers is not None else frozenset(),
        borrows,
        # C only: a C++ call may pick another overload of the name.
        context.allocators if context is not None and not cpp else frozenset(),
    )
    # C only, as `borrows`: a C++ call may pick another overload of the name.
    steady = (
        frozenset()
        if cpp
        else row_steady_parameters(
            fn_nodes, macros, context.row_steady if context is not None else frozenset()
        )
    )
    makers = row_table_wrappers(
        fn_nodes,
        macros,
        wrappers,
        borrows,
        context.row_tables if context is not None and not cpp else frozenset(),
        steady,
    )
    # C only, as `borrows`: a C++ call may pick another overload of the name.
    fillers = (
        frozenset()
        if cpp
        else row_filler_parameters(
            fn_nodes,
            macros,
            wrappers,
            borrows,
            context.row_fillers if context is not None else frozenset(),
        )
    )
    if not cpp:
        frozen_globals = with_global_rows(
            frozen_globals,
            fresh_row_globals(
                own_globals, fn_nodes, decl_nodes, macros, wrappers, makers, steady
            ),
            context.code if context is not None else "",
        )
    slots = pointer_slots(
        fn_nodes,
        headers.pointer_slots if headers is not None else frozenset(),
        wrappers,
    )
    functions: list[Function] = []
    nests: list[Loop] = []
    pointers = pointer_names(decl_nodes)
    for node in fn_nodes:
        cxx = (
            (unit, definitions[node.start_byte], globals_env)
            if unit is not None
            else None
        )
        built = function_definition(
            node,
            macros,
            frozen_globals,
            inactive,
            wrappers,
            cxx,
            types,
            pointers,
            slots,
            borrows,
            makers,
            steady,
            fillers,
        )
        if built is None:
            continue
        functions.append(built[0])
        nests.extend(built[1])
    # A statement macro's block read as a definition hides code: a parse error,
    # and a loop not read (the macro's own, most often).
    blocks = macro_blocks(fn_nodes)
    errors = sorted([*_error_nodes(root), *blocks], key=lambda n: n.start_byte)
    known = {loop.id for nest in nests for loop in nest.walk()}
    # Bodies outside any function: K&R definitions read as bare blocks.
    loose = [c for c in root.children if c.type in _LOOSE] if root.has_error else []
    # Branches for every file: device lifetimes (OpenACC too) need the `if` arms.
    constructs, branches = find_constructs(root, parsed.language)
    return SourceFile(
        path=path or "<stdin>",
        text=text,
        nests=tuple(nests),
        functions=tuple(functions),
        globals=frozen_globals,
        macros=macros.object_pairs(),
        function_macros=tuple(
            (name, m.params, m.body) for name, m in sorted(macros.functions.items())
        ),
        errors=tuple(
            sorted(
                [span_of(node) for node in errors]
                + ([comment] if comment is not None else []),
                key=lambda s: s.start_byte,
            )
        ),
        stray_loops=_stray_loops([*errors, *loose], known),
        skipped_loops=skipped,
        unread_loops=tuple((span_of(n), MACRO_BLOCK) for n in blocks),
        skipped_lines=inactive,
        missing_headers=context.missing if context is not None else (),
        preprocessor_problem=context.problem if context is not None else None,
        constructs=constructs,
        branches=branches,
        types=types,
        field_events=field_events(
            [*fn_nodes, *decl_nodes],
            [_event_name(n, definitions) for n in fn_nodes] + [""] * len(decl_nodes),
            [_members(n, unit, definitions) for n in fn_nodes]
            + [frozenset()] * len(decl_nodes),
            slots,
        ),
        headers=headers,
        allocators=wrappers,
        row_tables=makers,
        row_fillers=fillers,
        row_steady=steady,
        borrowers=borrows,
        pointer_slots=slots,
        no_default_constructor=unit.no_default() if unit is not None else frozenset(),
        user_reductions=unit.user_reductions() if unit is not None else (),
        unreduced=unit.unreduced_reasons() if unit is not None else (),
    )


def _event_name(node: Node, definitions: dict[int, Definition]) -> str:
    """The name field events give a definition: a C++ method's qualified one."""
    found = definitions.get(node.start_byte)
    return found.name if found is not None else function_name(node)[0] or ""


def _members(
    node: Node, unit: CppUnit | None, definitions: dict[int, Definition]
) -> frozenset[str]:
    """The data members a C++ method names bare (`m` for `this->m`)."""
    found = definitions.get(node.start_byte)
    if unit is None or found is None or found.class_name is None:
        return frozenset()
    info = unit.scope.classes.get(found.class_name)
    return frozenset(info.fields) - info.statics if info is not None else frozenset()


@lru_cache(maxsize=8)
def _header_source(
    code: str, places: tuple[tuple[str, int], ...], language: str = "c"
) -> SourceFile:
    """The functions of the project's headers, parsed once per header code."""
    header = parse_source(code, "<headers>", language=language)
    return replace(header, places=places, nests=())
