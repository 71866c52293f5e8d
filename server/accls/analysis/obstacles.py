"""Conservative reasons a loop cannot run in parallel: exits, calls, shape, syntax."""

from __future__ import annotations

from accls.analysis.call_reasons import duplicate_definitions, unknown_call_reason
from accls.analysis.canonical_tests import shape_message
from accls.analysis.errno_calls import errno_obstacle
from accls.analysis.model import Obstacle, ObstacleCode
from accls.analysis.narrow_counters import counter_decl, narrow_counter_obstacle
from accls.analysis.overload_types import other_overload, typed_definition
from accls.analysis.overloads import called_definition, takes
from accls.analysis.pointer_copies import invariant_copy, stable_names
from accls.analysis.private_calls import private_effects
from accls.analysis.program import ProgramSummaries
from accls.analysis.scalars import is_scalar_ref
from accls.analysis.unsigned_bounds import unsigned_bound_obstacle
from accls.analysis.unsigned_wrap import unsigned_wrap_obstacle
from accls.frontend import (
    EXIT_CALLS,
    Call,
    Effect,
    Exit,
    ExitKind,
    Function,
    Loop,
    SourceFile,
    Var,
    library_function,
)
from accls.frontend.asm_operands import ASM_CALL
from accls.frontend.library import names_with
from accls.frontend.recorder import UNREAD_CALL

__all__ = ["PURE_FUNCTIONS", "call_obstacles", "shape_obstacles", "user_calls"]

PURE_FUNCTIONS = names_with(Effect.PURE) | names_with(Effect.QUERY)
"""Library functions with no side effects that any compiler offloads (the table's
`pure` and `query` sections)."""

_LIBRARY_WHY = {
    Effect.IO: "which does I/O in order: in parallel the output would be reordered",
    Effect.HIDDEN: (
        "which keeps hidden state shared by every call: the iterations would race on it"
    ),
    Effect.THREAD: "whose value depends on the thread or the time that runs it",
}

_FLOATING = frozenset({"float", "double", "long double", "_Float16", "__float128"})


def _pure_user(name: str, source: SourceFile, seen: frozenset[str]) -> bool:
    fn = source.function(name)
    if fn is None or name in seen or fn.writes_nonlocal:
        return False
    return all(
        callee in PURE_FUNCTIONS or _pure_user(callee, source, seen | {name})
        for callee in fn.calls
    )


def user_calls(loop: Loop, source: SourceFile) -> tuple[str, ...]:
    """Functions defined in this file that the loop calls and that are pure."""
    names = {c.name for c in loop.calls if c.name not in PURE_FUNCTIONS}
    return tuple(sorted(n for n in names if _pure_user(n, source, frozenset())))


def _unknown_detail(name: str, program: ProgramSummaries | None) -> str:
    """Why nothing is known of `name`, and what would tell."""
    if program is None:
        return "whose side effects are unknown"
    found = program.lookup(name)
    if len(found) > 1:
        places = " and ".join(f"`{d.place}`" for d in found[:2])
        return (
            f"which is defined in both {places}: which one the program links is unknown"
        )
    if not program.complete:
        return (
            "whose side effects are unknown: its file is still being indexed, "
            "or it is defined in no file of the workspace"
        )
    return (
        "whose side effects are unknown: it is defined in no file of the project "
        "nor in the table of library effects (pass its file with --project or "
        "list it in compile_commands.json)"
    )


def _unfound_module(modules: tuple[str, ...]) -> str:
    """Why an undeclared Fortran name is unknown: a `use`d module was not found."""
    names = " and ".join(f"`{m}`" for m in modules[:2])
    word = "module" if len(modules) == 1 else "modules"
    return (
        f"which is declared nowhere in this file: it may be an array or procedure of "
        f"{word} {names}, whose source is not beside this file nor in an -I folder"
    )


def call_obstacles(
    loop: Loop, source: SourceFile, program: ProgramSummaries | None = None
) -> tuple[tuple[Obstacle, ...], tuple[str, ...]]:
    """Calls whose side effects are unknown or real (I/O, allocation, globals).

    Also returns why the other calls of functions that write memory are safe:
    they write only the iteration's own locals through their arguments.
    `program` holds the summaries of the functions the other files define.
    """
    out: list[Obstacle] = []
    safe: list[str] = []
    reported: set[str] = set()
    exits = {e.span.start_byte for e in loop.exits if e.kind is ExitKind.EXIT}
    for call in loop.calls:
        if call.name in reported:
            continue
        own = source.function(call.name) is not None
        if call.name in EXIT_CALLS and call.span.start_byte in exits and not own:
            continue  # an early exit of the loop: `shape_obstacles` says why
        # Of a name defined more than once, the one its argument count fits.
        chosen = called_definition(
            call.name, len(call.args), source
        ) or typed_definition(call, loop, source)
        view = source.calling(chosen) if chosen is not None else source
        twice = duplicate_definitions(call.name, source) if chosen is None else None
        if twice is not None:  # no summary: which definition runs is unknown
            reported.add(call.name)
            out.append(_call_obstacle(call, twice))
            continue
        only = source.function(call.name) if chosen is None else None
        if only is not None and not takes(only, len(call.args), source):
            reported.add(call.name)
            out.append(
                _call_obstacle(call, other_overload(only, len(call.args), source))
            )
            continue
        # A function the program defines is its own, whatever the table says.
        defined = view.function(call.name)
        elsewhere = (
            program.lookup(call.name) if program is not None and defined is None else ()
        )
        known = (
            library_function(call.name) if defined is None and not elsewhere else None
        )
        if known is not None and call.name in PURE_FUNCTIONS:
            continue
        if known is not None and known.effect is Effect.ALLOC and not known.device:
            continue  # thread-safe, and the block it returns overlaps nothing
        # Even a function that writes nothing may read what the loop writes, so
        # every call of a function of the file goes through its summary.
        verdict = private_effects(call, loop, view, PURE_FUNCTIONS, program)
        if verdict is not None and verdict[0]:
            if verdict[1] not in safe:
                safe.append(verdict[1])
            continue
        reported.add(call.name)
        where = f" ({elsewhere[0].place})" if len(elsewhere) == 1 else ""
        if verdict is not None:
            detail = verdict[1]
        elif len(elsewhere) == 1:
            detail = elsewhere[0].why or "which has other effects"
        elif known is not None and known.effect in _LIBRARY_WHY:
            detail = _LIBRARY_WHY[known.effect]
        elif defined is not None and defined.writes_nonlocal:
            what = ", ".join(f"`{w}`" for w in defined.writes_nonlocal[:3])
            detail = f"which writes {what}"
        elif defined is not None:
            detail = (
                unknown_call_reason(call, loop, source, PURE_FUNCTIONS)
                or "which calls functions with unknown side effects"
            )
        elif source.missing_modules:
            detail = _unfound_module(source.missing_modules)
        else:
            detail = unknown_call_reason(
                call, loop, source, PURE_FUNCTIONS
            ) or _unknown_detail(call.name, program)
        out.append(_call_obstacle(call, detail, where))
    errno = errno_obstacle(loop, source, program)
    if errno is not None:
        out.append(errno)
    return tuple(out), tuple(safe)


def _call_obstacle(call: Call, detail: str, where: str = "") -> Obstacle:
    """The obstacle of a call; `where` is the callee's place in another file."""
    line = call.span.line
    message = f"calls `{call.name}()` at line {line}{where}, {detail}"
    if call.name == UNREAD_CALL:  # no call: text the parse could not read
        message = (
            f"has text at line {line} that could not be read (an `#include` or "
            "`#if` block as a body, or a macro used as a statement): what it does "
            "is unknown"
        )
    elif call.name == ASM_CALL:
        message = (
            f"has an `asm` statement at line {line} that clobbers memory: "
            "what it reads and writes is unknown"
        )
    return Obstacle(
        code=ObstacleCode.CALL, line=line, variable=call.name, message=message
    )


def _exit_message(exit_: Exit, source: SourceFile) -> str:
    """Why an early exit blocks the loop; a call that ends the program says so."""
    line = exit_.span.line
    if exit_.kind is not ExitKind.EXIT:
        return f"`{exit_.kind.value}` at line {line} leaves the loop early"
    text = source.data[exit_.span.start_byte : exit_.span.end_byte].decode(
        "utf-8", errors="replace"
    )
    if text.lstrip().startswith("throw"):
        return (
            f"`throw` at line {line} may end the program: an exception must not "
            "leave a parallel region, and one that does calls `std::terminate`; "
            "in order, the loop stops at the first throwing iteration"
        )
    name = text.split("(", 1)[0].strip() or "exit"
    if name.endswith((".at", "->at")):
        return (
            f"`{' '.join(text.split())}` at line {line} throws `std::out_of_range` "
            "when the index is out of range: an exception must not leave a parallel "
            "region (it calls `std::terminate`), and in order the loop stops there"
        )
    if name.endswith("longjmp"):
        return (
            f"`{name}()` at line {line} is a non-local jump (setjmp/longjmp): it "
            "leaves the loop and its function, which no parallel loop may do"
        )
    return (
        f"`{name}()` at line {line} may end the program: run in parallel, other "
        "threads' iterations, past the one that ends it, may already have run "
        "(their writes and output), where the loop in order stops there"
    )


def _var_type(name: str, fn: Function | None, globals_: tuple[Var, ...]) -> Var | None:
    found = fn.lookup(name) if fn is not None else None
    return found or next((g for g in globals_ if g.name == name), None)


def _init_limited(loop: Loop) -> bool:
    """True when limits from the initial value (`max(0, t - 4)`) bound the loop."""
    falling = (loop.step or 0) < 0
    return any(limit.upper == falling for limit in loop.limits)


def shape_obstacles(
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
    owned: frozenset[str] = frozenset(),
) -> tuple[Obstacle, ...]:
    """Early exits, a non-canonical header, changing bounds and syntax errors.

    `owned` names the arrays each iteration allocates for itself.
    """
    out: list[Obstacle] = []
    for exit_ in loop.exits:
        out.append(
            Obstacle(
                code=ObstacleCode.EXIT,
                line=exit_.span.line,
                message=_exit_message(exit_, source),
            )
        )
    # `i != n` with a unit step is canonical too (OpenMP 5.0): it stops at n.
    # A loop-invariant variable step (`j += Tile`) is canonical too (OpenMP).
    stepped = loop.step not in (None, 0) or bool(loop.step_symbol)
    canonical = (
        loop.var is not None
        and stepped
        and (
            loop.cond_op in ("<", "<=", ">", ">=")
            or (loop.cond_op == "!=" and loop.step in (1, -1))
        )
        and (loop.lower is not None or _init_limited(loop))
    )
    if canonical and loop.step is not None and loop.cond_op != "!=":
        rising = loop.step > 0
        canonical = (loop.cond_op in ("<", "<=")) == rising
    if loop.unbounded:
        out.append(
            Obstacle(
                code=ObstacleCode.UNBOUNDED,
                line=loop.line,
                variable=loop.var,
                message=f"the loop condition `{loop.unbounded}` never "
                f"tests the loop variable `{loop.var}`: the loop has no bound, so "
                "its accesses cannot be bounded",
            )
        )
    elif not canonical:
        out.append(
            Obstacle(
                code=ObstacleCode.SHAPE,
                line=loop.line,
                variable=loop.var,
                message=shape_message(loop, source),
            )
        )
    elif loop.var is not None:
        decl = counter_decl(loop, fn, source)
        if decl is not None and decl.pointers == 0 and decl.type in _FLOATING:
            out.append(
                Obstacle(
                    code=ObstacleCode.SHAPE,
                    line=loop.line,
                    variable=loop.var,
                    message=f"the loop variable `{loop.var}` is not an integer",
                )
            )
        narrow = narrow_counter_obstacle(loop, decl, source)
        unsigned = unsigned_bound_obstacle(loop, decl, fn, source)
        wraps = unsigned_wrap_obstacle(loop, decl, fn, source)
        out.extend(o for o in (narrow, unsigned, wraps) if o is not None)
    for inner in loop.walk()[1:]:
        if inner.unbounded:
            out.append(
                Obstacle(
                    code=ObstacleCode.UNBOUNDED,
                    line=inner.line,
                    variable=inner.var,
                    message=f"the loop at line {inner.line} inside it has no bound: "
                    f"its condition `{inner.unbounded}` never tests `{inner.var}`",
                )
            )
            break
    if loop.opaque:
        out.append(
            Obstacle(
                code=ObstacleCode.OPAQUE,
                line=loop.line,
                message="part of the loop body cannot be analysed: it is nested too "
                "deeply, or uses a macro whose text is no expression",
            )
        )
    for var in loop.locals:
        # One object for every iteration and every thread, whatever its scope.
        start = var.span.start_byte if var.span is not None else -1
        if var.static and any(
            r.is_write and r.name == var.name and r.span.start_byte != start
            for r in loop.refs
        ):
            out.append(
                Obstacle(
                    code=ObstacleCode.STATIC,
                    line=var.span.line if var.span is not None else loop.line,
                    variable=var.name,
                    message=f"`{var.name}` is declared `static` inside the loop: "
                    "every iteration and every thread share it",
                )
            )
    for name in loop.volatile_bounds:
        out.append(
            Obstacle(
                code=ObstacleCode.BOUND,
                line=loop.line,
                variable=name,
                message=f"the loop bound uses `{name}`, which the body modifies",
            )
        )
    for err in source.errors:
        if loop.span.start_byte <= err.start_byte < loop.span.end_byte:
            out.append(
                Obstacle(
                    code=ObstacleCode.SYNTAX,
                    line=err.line,
                    message=f"syntax error at line {err.line} inside the loop",
                )
            )
            break
    declared = {v.name: v for v in loop.locals}
    repointed = set()
    for ref in loop.refs:
        if is_scalar_ref(ref) and ref.is_write:
            decl = declared.get(ref.name) or _var_type(ref.name, fn, source.globals)
            if ref.name in owned:
                continue  # a block of its own in every iteration
            if ref.copies and invariant_copy(loop, ref.name, stable_names(fn)):
                continue  # `p = particles;` first in every iteration
            if decl is None or decl.pointers > 0:
                repointed.add(ref.name)
    for ref in loop.refs:
        if ref.is_write and not is_scalar_ref(ref) and ref.name in repointed:
            out.append(
                Obstacle(
                    code=ObstacleCode.POINTER,
                    line=ref.span.line,
                    variable=ref.name,
                    message=f"writes through `{ref.name}` (line {ref.span.line}), a "
                    "pointer that the loop itself re-points",
                )
            )
            break
    return tuple(out)
