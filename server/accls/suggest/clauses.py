"""Scalar and data clauses of a pragma, each with the fact that justifies it."""

from __future__ import annotations

import re

from accls.analysis import FileAnalysis, LoopFacts, ScalarClass
from accls.analysis.access_paths import member_levels
from accls.analysis.aliasing import array_decl
from accls.analysis.array_sections import loop_array_uses
from accls.analysis.data_clauses import managed_arrays
from accls.analysis.hull_sections import hull_section
from accls.analysis.mapped_storage import shared_storage
from accls.frontend import Clause, Function, SourceFile, Var
from accls.suggest.allocated_extents import allocated_section
from accls.suggest.callee_arrays import callee_array_uses
from accls.suggest.context import Placement
from accls.suggest.element_clauses import element_base, element_clauses, merge_wholes
from accls.suggest.heap_private import heap_private_blocker
from accls.suggest.one_storage import one_storage_copies
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Target
from accls.suggest.region_present import present_blocker

__all__ = ["data_clauses", "scalar_clauses"]

_PATH_STEP = re.compile(r"->|\.")
# An offloaded array reduction copies the section for every device thread.
DEVICE_REDUCTION_ELEMENTS = 1024
_OMP_MAP = {"copyin": "to", "copyout": "from", "copy": "tofrom", "create": "alloc"}


def scalar_clauses(
    facts: LoopFacts, opts: SuggestOptions, covered: set[int]
) -> tuple[list[Clause], list[str], str | None]:
    """private/lastprivate/reduction clauses; a blocker message if impossible."""
    loop = facts.loop
    folded = {inner.var for inner in loop.walk() if inner.id in covered and inner.var}
    private: list[str] = []
    last: list[str] = []
    first: list[str] = []
    reductions: dict[str, list[str]] = {}
    reasons: list[str] = []
    offload = opts.dialect is Dialect.OPENACC or opts.target is Target.GPU
    for fact in facts.scalars:
        if fact.cls is ScalarClass.LASTPRIVATE:
            if offload:
                where = (
                    "OpenACC has no lastprivate"
                    if opts.dialect is Dialect.OPENACC
                    else ("an offloaded loop does not return it")
                )
                return (
                    [],
                    [],
                    (
                        f"`{fact.name}` is used after the loop, so its last value is "
                        f"needed ({where})"
                    ),
                )
            last.append(fact.name)
            reasons.append(f"lastprivate({fact.name}): {fact.why}")
            if fact.keep_first:
                first.append(fact.name)
                reasons.append(
                    f"firstprivate({fact.name}): the loop may run no iteration, and "
                    f"then `{fact.name}` must keep its value (a lastprivate copy "
                    "alone is copied out unset)"
                )
        elif fact.cls is ScalarClass.PRIVATE:
            if fact.declared_inside or fact.name in folded:
                continue
            private.append(fact.name)
            reasons.append(f"private({fact.name}): {fact.why}")
        elif fact.cls is ScalarClass.REDUCTION and fact.op is not None:
            reductions.setdefault(fact.op.value, []).append(fact.name)
            reasons.append(f"reduction({fact.op.value}:{fact.name}): {fact.why}")
    for name in facts.private_arrays:
        # A fixed-size array object: the clause copies the whole array, in
        # OpenMP and OpenACC alike (a pointer never gets here).
        private.append(name)
        reasons.append(
            f"private({name}): every iteration writes the elements of `{name}` it "
            "reads before reading them, and nothing reads it after the loop"
        )
    blocks = [f"{name}[0:{count}]" for name, count in facts.private_blocks]
    if blocks and (opts.dialect is not Dialect.OPENACC or not opts.private_sections):
        return [], [], heap_private_blocker(facts.private_blocks, opts.dialect)
    for (pointer, _), section in zip(facts.private_blocks, blocks, strict=True):
        private.append(section)
        reasons.append(
            f"private({section}): every iteration writes the elements of the "
            f"block `{pointer}` points to before reading them, and nothing reads "
            "them after the loop"
        )
    for arr in facts.array_reductions:
        if offload and arr.elements > DEVICE_REDUCTION_ELEMENTS:
            return [], [], _device_copies(arr.name, arr.elements)
        item = f"{arr.name}{arr.section}"
        reductions.setdefault(arr.op.value, []).append(item)
        reasons.append(f"reduction({arr.op.value}:{item}): {arr.why}")
    clauses: list[Clause] = []
    if private:
        clauses.append(Clause("private", ", ".join(private)))
    if first:
        clauses.append(Clause("firstprivate", ", ".join(first)))
    if last:
        clauses.append(Clause("lastprivate", ", ".join(last)))
    for op, names in reductions.items():
        clauses.append(Clause("reduction", f"{op}:{', '.join(names)}"))
    return clauses, reasons, None


def _device_copies(name: str, elements: int) -> str:
    return (
        f"`{name}` is only accumulated into, but a reduction gives every device "
        f"thread a private copy of its {elements} elements: too many for GPU "
        f"memory (at most {DEVICE_REDUCTION_ELEMENTS})"
    )


def data_clauses(
    facts: LoopFacts, opts: SuggestOptions, where: Placement, analysis: FileAnalysis
) -> tuple[list[Clause], list[str], str | None]:
    """Data clauses for an offloaded loop; a blocker if an extent is unknown."""
    loop = facts.loop
    source = analysis.source
    fn = source.function(loop.function)
    called = callee_array_uses(loop, analysis)
    names = {r.name for r in loop.refs if r.subscripts or r.deref}
    names |= {use.name for use in called}
    decls: dict[str, Var | None] = {n: array_decl(n, fn, source.globals) for n in names}
    present = dict(where.present)
    sentinel = opts.dialect.sentinel
    groups: dict[str, list[str]] = {}
    reasons: list[str] = []
    mapped: list[str] = []  # the names a transfer clause moves
    exact: dict[str, str] = {}  # their exact sections, the name left out: "[0:n]"
    chosen: dict[str, tuple[str, str]] = {}  # each mapped name's kind and item
    uses = (*loop_array_uses(loop, analysis), *called)
    wholes, blocker = element_clauses(uses, loop, fn, source, present)
    if blocker is not None:
        return [], [], blocker
    for use in uses:
        if use.name in facts.private_arrays or use.name in dict(facts.private_blocks):
            continue  # each gang/thread has its own copy: nothing to move
        if element_base(use.name, loop) is not None:
            continue  # moved whole below
        decl = decls.get(use.name)
        moved = next(
            (
                r
                for r in loop.refs
                if r.name == use.name
                and r.is_write
                and not r.subscripts
                and not r.deref
            ),
            None,
        )
        if moved is not None:
            # `p = particles;` in the body: a clause would move what `p` held
            # before the loop, and the device's `p` would get a host address.
            return (
                [],
                [],
                f"`{use.name}` is set inside the loop (line {moved.span.line}): a "
                "data clause would move the memory it pointed to before the loop; "
                "use the array it is set to, or map that with a data region first",
            )
        if decl is not None and decl.device:
            kind = "deviceptr" if opts.dialect is Dialect.OPENACC else "is_device_ptr"
            groups.setdefault(kind, []).append(use.name)
            reasons.append(
                f"{kind}({use.name}): `{use.name}` points to device memory "
                "(allocated on the device)"
            )
            continue
        if use.name in present:
            blocker = present_blocker(
                use, loop, fn, sentinel, managed_arrays(source, sentinel), source.nests
            )
            if blocker is not None:
                return [], [], blocker
            if opts.dialect is Dialect.OPENACC:
                groups.setdefault("present", []).append(present[use.name])
                reasons.append(
                    f"present({present[use.name]}): `{use.name}` is already on the "
                    "device in the enclosing data region"
                )
            continue
        if _container_member(use.name, fn, source):
            return (
                [],
                [],
                f"`{use.name}` is a C++ container member (`std::vector`, "
                "`std::array`): a data clause on it would move the object's pointer "
                "and size, not the elements; take `double *p = x.data();` before the "
                "loop and index `p`, or map the elements with a data region",
            )
        item = use.section or use.name
        if not use.known:
            whole = allocated_section(use.name, decl, fn)
            if whole is None and use.name not in {u.name for u in called}:
                whole = hull_section(loop, use.name, list(use.facts))
            if whole is None:
                return (
                    [],
                    [],
                    (
                        f"cannot tell which elements of `{use.name}` the loop "
                        "touches, so no data clause can be written; move it with an "
                        "enclosing data region"
                    ),
                )
            item = whole  # the whole block it was allocated: see allocated_extents
        if use.written and use.exact_cover and not use.read_first:
            kind, why = (
                "copyout",
                (f"every element of `{item}` is written before any read of it"),
            )
        elif use.read and use.written:
            kind, why = "copy", f"`{use.name}` is read and written"
        elif use.read:
            kind, why = "copyin", f"`{use.name}` is only read"
        else:
            kind, why = "copy", f"`{use.name}` is written, but maybe not every element"
        groups.setdefault(kind, []).append(item)
        reasons.append(f"{kind}({item}): {why}")
        mapped.append(use.name)
        chosen[use.name] = (kind, item)
        if use.known and item.startswith(use.name):
            exact[use.name] = item[len(use.name) :].replace(" ", "")
    merge_wholes(wholes, groups, reasons, chosen, mapped)
    one_storage_copies(chosen, groups, reasons, fn, source, analysis.program)
    overlap = shared_storage(
        mapped, fn, source, analysis.program, sections=exact, loops=(loop,)
    )
    if overlap is not None:
        return [], [], overlap.reason("one construct")
    _whole_structs(groups, reasons, analysis, fn)
    for fact in facts.scalars:
        if fact.cls is ScalarClass.SHARED and fact.written:
            # Offloaded, a scalar is firstprivate by default: its store is lost.
            groups.setdefault("copy", []).append(fact.name)
            reasons.append(f"copy({fact.name}): the loop stores `{fact.name}`")
    clauses: list[Clause] = []
    if opts.dialect is Dialect.OPENACC:
        for kind in ("copy", "copyin", "copyout", "create", "present", "deviceptr"):
            if kind in groups:
                clauses.append(Clause(kind, ", ".join(groups[kind])))
    else:
        for kind in ("copyin", "copyout", "copy", "create"):
            if kind in groups:
                clauses.append(
                    Clause("map", f"{_OMP_MAP[kind]}: {', '.join(groups[kind])}")
                )
        if "is_device_ptr" in groups:
            clauses.append(Clause("is_device_ptr", ", ".join(groups["is_device_ptr"])))
        reds = [f.name for f in facts.scalars if f.cls is ScalarClass.REDUCTION]
        if reds:
            clauses.append(Clause("map", f"tofrom: {', '.join(reds)}"))
    return clauses, reasons, None


def _whole_structs(
    groups: dict[str, list[str]],
    reasons: list[str],
    analysis: FileAnalysis,
    fn: Function | None,
) -> None:
    """Map `p[0:1]` for sections of array members reached through a pointer `p`.

    `copyin(p->v[0:n])` or `map(to: p->v[0:n])` with `v` an array inside `*p`
    moves part of an object whose pointer `p` is not on the device; compilers
    mishandle it (gcc 12's code crashes even on the host device). Moving the
    struct whole is what experts write.
    """
    source = analysis.source
    whole: dict[str, str] = {}
    for kind in ("copyin", "copyout", "copy", "create"):
        kept: list[str] = []
        for item in groups.get(kind, []):
            name = item.split("[", 1)[0]
            levels = member_levels(name, fn, source.globals, source.types)
            if "->" not in name or levels is None or not levels.startswith("["):
                kept.append(item)
                continue
            base = name.rsplit("->", 1)[0]
            before = whole.get(base)
            whole[base] = kind if before is None or before == kind else "copy"
            reasons.append(
                f"map the whole `*{base}`: `{name}` is an array inside the struct "
                f"`{base}` points to"
            )
        if kept:
            groups[kind] = kept
        else:
            groups.pop(kind, None)
    for base, kind in whole.items():
        if kind in ("create", "copyout"):
            # The loop writes some members, not the whole object: created, the
            # others would be read uninitialised; copied out, they would come
            # back to the host with the device's uninitialised values.
            kind = "copy"
        groups.setdefault(kind, []).append(f"{base}[0:1]")


def _container_member(name: str, fn: Function | None, source: SourceFile) -> bool:
    """Whether the path `name` (`d.v`, `this->v`) ends at a C++ container member."""
    parts = _PATH_STEP.split(name)
    root = array_decl(name, fn, source.globals)
    if root is None or len(parts) < 2:
        return False
    type_, member = root.type, None
    for field_name in parts[1:]:
        fields = source.types.fields_of(type_)
        member = fields.get(field_name.strip()) if fields is not None else None
        if member is None:
            return False
        type_ = member.type
    return member is not None and member.container
