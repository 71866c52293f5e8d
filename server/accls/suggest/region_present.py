"""When an array an enclosing data region holds may be used `present` by a loop.

A loop inside `#pragma acc data` (or `omp target data`) finds the region's copy
of an array on the device. That copy serves the offloaded loop only if:

- it covers every element the loop touches: `copy(a[0:n/2])` around a loop over
  `a[0:n]` leaves the loop reading and writing past the device copy;
- the loop's writes get back to the host: a region that moves `a` in only
  (`copyin`, `create`, `map(to:)`, `map(alloc:)`) drops them at its end. On the
  host the loop wrote host memory, so offloading it loses those values, unless
  the array is the function's own scratch that nothing reads after the region.
"""

from __future__ import annotations

from accls.analysis.array_sections import ArrayUse
from accls.analysis.data_clauses import Section, clause_sections, transfer_kinds
from accls.analysis.inequalities import proves_nonnegative
from accls.frontend import Directive, Function, Loop, Ref, Region
from accls.frontend.exprs import expression_poly

__all__ = ["covers_use", "present_blocker"]

_IN_ONLY = frozenset({"copyin", "create"})


def _holder(loop: Loop, name: str, sentinel: str) -> tuple[Region, Directive] | None:
    """The outermost region of the dialect whose data clauses name the array."""
    for region in loop.regions:  # outermost first
        directive = region.directive
        if directive.dialect != sentinel:
            continue
        words = set(directive.name.split())
        if words & {"enter", "exit", "update"}:
            continue
        if name in transfer_kinds(directive) or any(
            s.name == name for s in clause_sections(directive)
        ):
            return region, directive
    return None


def covers_use(section: Section, use: ArrayUse) -> bool:
    """True if the region's section provably holds every element the loop touches."""
    if not section.dims:
        return True  # the whole array
    box = use.box
    if box is None or len(section.dims) > len(box):
        return False
    facts = list(use.facts)
    for (start_text, length_text), (start, length) in zip(
        section.dims, box, strict=False
    ):
        low = expression_poly(start_text)
        size = expression_poly(length_text)
        if low is None or size is None:
            return False
        if not proves_nonnegative(start - low, facts):
            return False
        if not proves_nonnegative(low + size - start - length, facts):
            return False
    return True


def _scratch(name: str, fn: Function | None, region: Region) -> bool:
    """A local of the function that nothing touches after the region ends."""
    var = fn.lookup(name) if fn is not None else None
    if fn is None or var is None or var.scope != "local" or var.static:
        return False
    end = region.span.end_byte
    freed = [
        c.span
        for c in fn.call_sites
        if c.name == "free" and c.args == (name,) and c.span.start_byte >= end
    ]

    def harmless(ref: Ref) -> bool:  # `free(t)`, `t = NULL`: no element is read
        if ref.subscripts or ref.deref:
            return False
        start = ref.span.start_byte
        return ref.is_write or any(s.start_byte <= start < s.end_byte for s in freed)

    return not any(
        r.name == name and r.span.start_byte >= end and not harmless(r) for r in fn.refs
    )


def _host_statement(
    name: str, fn: Function | None, region: Region, nests: tuple[Loop, ...]
) -> int | None:
    """The line of a statement in the region, outside every loop, that uses `name`.

    The host writes or reads its own copy there while the device holds another:
    once the loop runs on the device, one of them is stale.
    """
    if fn is None:
        return None
    spans = [nest.span for nest in nests if nest.function == fn.name]
    for ref in fn.refs:
        start = ref.span.start_byte
        if ref.name != name or not (
            region.span.start_byte <= start < region.span.end_byte
        ):
            continue
        if not any(s.start_byte <= start < s.end_byte for s in spans):
            return ref.span.line
    return None


def present_blocker(
    use: ArrayUse,
    loop: Loop,
    fn: Function | None,
    sentinel: str,
    managed: set[str],
    nests: tuple[Loop, ...] = (),
) -> str | None:
    """Why the loop may not use the region's copy of `use.name`; None if it may."""
    found = _holder(loop, use.name, sentinel)
    if found is None:
        return None
    region, directive = found
    line = directive.span.line if directive.span is not None else region.span.line
    words = set(directive.name.split())
    host = _host_statement(use.name, fn, region, nests) if "data" in words else None
    if host is not None and use.name not in managed:
        return (
            f"line {host} uses `{use.name}` on the host inside the data region "
            f"(line {line}) that holds its device copy: offloaded, the loop and "
            "that line would see different copies; add an update between them, "
            "or end the region before that line"
        )
    sections = [s for s in clause_sections(directive) if s.name == use.name]
    if len(sections) == 1 and not covers_use(sections[0], use):
        touched = use.section or use.name
        return (
            f"the data region at line {line} holds `{sections[0].clause}`, which is "
            f"not shown to cover `{touched}` that the loop touches: offloaded, it "
            "would reach past the device copy; widen the region's section"
        )
    kind = transfer_kinds(directive).get(use.name)
    if (
        use.written
        and kind in _IN_ONLY
        and use.name not in managed
        and not _scratch(use.name, fn, region)
    ):
        back, update = (
            ("copy or copyout", f"`#pragma acc update self({use.name}...)`")
            if sentinel == "acc"
            else (
                "map(tofrom:) or map(from:)",
                f"`#pragma omp target update from({use.name}...)`",
            )
        )
        return (
            f"the data region at line {line} moves `{use.name}` to the device only "
            f"(`{sections[0].clause if sections else kind}`): offloaded, the loop's "
            f"writes to `{use.name}` would stay on the device and be lost at the "
            f"region's end; make it {back}, or add {update} after the loop"
        )
    return None
