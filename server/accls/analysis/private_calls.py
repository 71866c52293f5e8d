"""Whether a call touches only the iteration's own memory (`private_effects`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from accls.analysis.call_arguments import (
    argument_ref,
    promoted_row,
    read_field_why,
    shared_write,
)
from accls.analysis.call_read_alias import read_overlap
from accls.analysis.callee_fills import filled_arrays
from accls.analysis.callee_inline_probe import inline_verdict
from accls.analysis.element_arguments import element_write
from accls.analysis.field_reach import reads_apart
from accls.analysis.iteration_arrays import iteration_arrays
from accls.analysis.member_reads import member_reads_apart
from accls.analysis.nest_views import integer_macros
from accls.analysis.out_params import defines
from accls.analysis.own_objects import beyond_why, own_object
from accls.analysis.pointer_slices import known_callee
from accls.analysis.range_arguments import range_write
from accls.analysis.row_arguments import library_row_read
from accls.analysis.row_reads import row_read
from accls.analysis.row_sizes import size_why
from accls.analysis.summaries import (
    NULL_ARGUMENT,
    base_name,
    callback_globals,
    callback_reason,
)
from accls.analysis.variadic_calls import call_summary
from accls.frontend import (
    NEW_OBJECT,
    Call,
    Effect,
    Loop,
    SourceFile,
    library_function,
)

if TYPE_CHECKING:
    from accls.analysis.program import ProgramSummaries

__all__ = ["private_effects"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_ADDRESS = re.compile(r"&\s*\(?\s*([A-Za-z_]\w*)")
# A row of an array: `B[0]`, `w[i][1]` (the callee reaches only that array).
_ROW = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:\[[^\[\]]*\]\s*)+")
_PLACE = re.compile(r"&?\s*([A-Za-z_]\w*)((?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*)")


def private_effects(
    call: Call,
    loop: Loop,
    source: SourceFile,
    pure: frozenset[str],
    program: ProgramSummaries | None = None,
) -> tuple[bool, str] | None:
    """Whether `call` in `loop` is safe for its iterations, and why; None: unknown.

    Its summary first; else its accesses written in at the call (callee_inline),
    which the dependence graph tested like the loop's own.
    """
    verdict = _summary_effects(call, loop, source, pure, program)
    if verdict is not None and verdict[0]:
        return verdict
    return inline_verdict(call, loop, source, pure) or verdict


def _summary_effects(
    call: Call,
    loop: Loop,
    source: SourceFile,
    pure: frozenset[str],
    program: ProgramSummaries | None = None,
) -> tuple[bool, str] | None:
    """Whether `call` in `loop` touches only the iteration's own memory, and why.

    None when the function has no summary. Written arguments must be `&x` or an
    array declared inside the loop body; read arguments and the globals the
    callee reads must not be written by the loop. A callee of another file
    (`program`) is named with its place.
    """
    summary = call_summary(call, source, pure, program)
    if summary is None:
        return None
    callback = callback_reason(call, source, pure, program)
    if callback is not None:
        return False, callback
    found = None
    if program is not None and source.function(call.name) is None:
        found = program.only(call.name)
    label = f"`{call.name}()`" + (f" ({found.place})" if found is not None else "")
    # The iteration's own memory: arrays declared in the body, and blocks a
    # pointer declared there got from an allocator.
    arrays = {v.name for v in loop.locals if v.dims and not v.pointers}
    arrays |= iteration_arrays(loop, source.function(loop.function), source)
    scalars = {v.name for v in loop.locals}
    # `&a[i]` only takes an address (where it goes, the summaries check).
    written = {base_name(r.name) for r in loop.refs if r.is_write and not r.escapes}
    # Index values are not memory: the loop's own variables may appear freely.
    indices = {x.var for x in loop.walk() if x.var} | scalars
    values = _assigned_whole(loop, source)
    private: list[str] = []
    rows: list[str] = []  # rows of arrays the callee writes, tested as accesses
    elements: list[str] = []  # elements it updates at one index, tested alike
    defined: list[str] = []  # `&x` of a loop scalar the callee stores first
    apart: list[str] = []  # reads the field sets prove untouched by the loop
    slices: list[str] = []  # elements it reads at fixed offsets, tested alike
    filled: list[str] = []  # arrays of the function it fills before any read
    fields = program.fields if program is not None else None
    # Written arguments first, so a read of the same object is seen as such.
    order = sorted(summary.writes) + sorted(summary.reads - summary.writes)
    for index in order:
        arg = call.args[index] if index < len(call.args) else ""
        if NULL_ARGUMENT.fullmatch(arg):
            continue  # a null pointer: nothing is read or written through it
        if own_object(call, index, loop, source):
            if index in summary.writes:  # a new object, or one of the body
                private.append(arg)
            continue
        fn = source.function(loop.function)
        library_row = library_row_read(call, index, loop, source, program)
        if index not in summary.writes and library_row is not None:
            # `memcpy(d, &x[i][1], W * 8)`: the row's read (row_arguments).
            overlap = read_overlap(call, [arg], loop, source, indices, fields)
            if overlap is not None:
                why = f"`{overlap[0]}` through an argument"
                return False, _overlap_why(why, overlap)
            slices.append(library_row.render())
            continue
        if index not in summary.writes:
            # `norm3(&a[3*i])`: the elements the callee reads, which the
            # dependence graph modelled (range_arguments), as the loop's own;
            # `norm3(f[i])`: the row read the front end recorded (row_reads).
            sliced = known_callee(call, source, program)
            ranged = range_write(call, index, loop.refs, fn, source, program)
            if ranged is None or not sliced:
                ranged = row_read(call, index, loop, source, program)  # `norm3(f[i])`
            if ranged is not None and sliced:
                overlap = read_overlap(call, [arg], loop, source, indices, fields)
                if overlap is not None:
                    return False, _overlap_why(
                        f"`{overlap[0]}` through an argument", overlap
                    )
                slices.append(ranged.render())
                continue
            # A variable the loop only assigns whole is passed by value: the
            # callee reads what it points to (or nothing), never the variable.
            names = set(_NAME.findall(arg)) - indices - (values - _addressed(arg))
            hit = sorted(names & (written | set(private)))
            if arg and hit and fields is not None and not set(hit) & set(private):
                refs = [r for r in loop.refs if r.is_write and base_name(r.name) in hit]
                proof = reads_apart(arg, refs, loop, source, fields)
                if proof is not None:
                    apart.append(proof)
                    hit = []
            if arg and hit and not set(hit) & set(private):
                proof = member_reads_apart(call, index, loop, source, fields)
                if proof is not None:
                    apart.append(proof)
                    hit = []
            if not arg or hit:
                what = f"`{hit[0]}`" if hit else "an argument"
                why = read_field_why(arg, loop, source, fields) if hit else ""
                return (
                    False,
                    f"which reads {what} through an argument, and the loop writes "
                    f"it{': ' + why if why else ''}",
                )
            overlap = read_overlap(call, [arg], loop, source, indices, fields)
            if overlap is not None:
                return False, _overlap_why(
                    f"`{overlap[0]}` through an argument", overlap
                )
            continue
        match = _PLACE.fullmatch(arg)
        base = match.group(1) if match is not None else ""
        by_address = arg.startswith("&")
        # `memcpy(&x[i*m], .., m * sizeof x[0])`: the range the dependence graph
        # modelled (range_arguments), tested like the loop's own accesses.
        ranged = range_write(call, index, loop.refs, fn, source, program)
        if ranged is not None:
            rows.append(ranged.render())
            continue
        # `randn(seed, x)`: element_arguments recorded the update `seed[x]`.
        element = element_write(call, index, loop, source)
        if element is not None:
            elements.append(element.render())
            continue
        # `&x[i][0]`: row_arguments recorded the row `x[i]` as written.
        row = argument_ref(call, arg, loop.refs) or promoted_row(call, arg, loop.refs)
        if row is not None and row.is_write and row.subscripts:
            # A row of an array of arrays, recorded as written (row_arguments):
            # the dependence test decides it like the loop's own accesses.
            rows.append(row.render() if arg.startswith("&") else arg)
            continue
        if by_address and base not in scalars and defines(call, index, loop, source):
            defined.append(base)
            continue
        local_row = _ROW.fullmatch(arg)
        if not by_address and local_row is not None and local_row.group(1) in arrays:
            base = local_row.group(1)  # `B[0]` of `double B[3][8]` of the body
        if not by_address and base in filled_arrays(
            loop, source, integer_macros(source.macros)
        ):
            filled.append(base)  # private_copies gives it `private(base)`
            continue
        if base not in (scalars if by_address else arrays):
            beyond = beyond_why(call, index, loop, source)
            if beyond is not None:
                return False, beyond
            return False, shared_write(call, arg, loop) + size_why(call, arg)
        private.append(base)
    globals_read = summary.globals_read | callback_globals(call, source, pure, program)
    shared = sorted(globals_read & written)
    if shared:
        return False, f"which reads the global `{shared[0]}`, and the loop writes it"
    overlap = read_overlap(
        call, sorted(globals_read), loop, source, set(), fields, globals_only=True
    )
    if overlap is not None:
        return False, _overlap_why(f"the global `{overlap[0]}`", overlap)
    if slices:
        listed = ", ".join(f"`{n}`" for n in dict.fromkeys(slices))
        apart.insert(
            0,
            f"{label} reads only {listed} through its arguments, tested like the "
            "loop's own accesses",
        )
    if rows:
        listed = ", ".join(f"`{n}`" for n in dict.fromkeys(rows))
        apart.insert(
            0,
            f"{label} writes only the row{'s' if len(rows) > 1 else ''} {listed} "
            "through its arguments, tested like the loop's own accesses",
        )
    if elements:
        listed = ", ".join(f"`{n}`" for n in dict.fromkeys(elements))
        apart.insert(
            0,
            f"{label} updates only the element{'s' if len(elements) > 1 else ''} "
            f"{listed} through its arguments, tested like the loop's own accesses",
        )
    apart.extend(
        f"{label} fills `{name}` before the iteration reads it: private({name})"
        for name in filled
    )
    outs = [
        f"{label} stores `*{name}` before any read of it: `{name}` is defined by "
        "the call, private to each iteration"
        for name in dict.fromkeys(defined)
    ]
    if not private:
        if outs or rows or elements or filled:
            return True, "; ".join([*outs, *apart])
        return True, "; ".join([f"{label} writes nothing outside itself", *apart])
    listed = ", ".join(
        "the new object" if n == NEW_OBJECT else f"`{n}`"
        for n in dict.fromkeys(private)
    )
    known = (
        library_function(call.name)
        if source.function(call.name) is None and found is None
        else None
    )
    if known is not None and known.effect is Effect.FREE:
        return True, (
            f"`{call.name}()` releases only {listed}, a block each iteration "
            "allocates for itself"
        )
    only = (
        f"{label} writes only {listed} through its arguments, declared in "
        "the loop body: private to each iteration"
    )
    return True, "; ".join([only, *apart])


def _assigned_whole(loop: Loop, source: SourceFile) -> frozenset[str]:
    """Locals and parameters the loop writes only whole: `p = q + k;`, `c = f(x);`.

    Such a write changes the variable itself, never memory a pointer in it
    reaches; whether the variable is private or carried, the scalar analysis of
    the loop decides (it sees the call's argument as a read of it).
    """
    fn = source.function(loop.function)
    if fn is None:
        return frozenset()
    by_name: dict[str, list[bool]] = {}
    for ref in loop.refs:
        plain = ref.name == base_name(ref.name) and not (
            ref.subscripts or ref.deref or ref.member or ref.escapes
        )
        if ref.is_write or ref.escapes:
            by_name.setdefault(base_name(ref.name), []).append(plain)
    out: set[str] = set()
    for name, whole in by_name.items():
        var = fn.lookup(name)
        if var is None or var.dims or var.address_taken or var.static:
            continue
        if var.scope in ("local", "param") and all(whole):
            out.add(name)
    return frozenset(out)


def _addressed(arg: str) -> set[str]:
    """The names whose address an argument takes: `&x`, `&s.f`."""
    return set(_ADDRESS.findall(arg))


def _overlap_why(what: str, overlap: tuple[str, str]) -> str:
    """Why a callee's read blocks the loop: a write of the loop may reach it."""
    return (
        f"which reads {what}, and the loop writes `{overlap[1]}`, which may "
        "point to the same memory (the pair is tested like the loop's own accesses)"
    )
