"""A function's kernel status: the arrays its own offloaded loops move, and how.

A function is a device kernel when every access of its caller-visible arrays
(pointer parameters, globals) lies in an outermost loop that already carries an
offload directive (`acc parallel loop`, `acc kernels loop`, `acc serial loop`,
`omp target ...`), and it has no other directive (no data, update, wait) and no
`async`/`nowait`, `deviceptr`/`is_device_ptr`, `if`/`self`/`device` or `always`
clause. Its calls then move those arrays and nothing else: a caller in another
file that keeps them on the device (`enter data` ... `exit data`) makes the
kernel's copies find present data. Each use's section is the loop's data clause
for that array when it names one (what the runtime maps, which the caller must
then hold whole), else the section its accesses cover.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from accls.analysis.aliasing import array_decl
from accls.analysis.array_sections import ArrayUse, array_uses
from accls.analysis.ref_guards import nest_guard_facts
from accls.frontend import Function, Loop, Poly, SourceFile
from accls.frontend.exprs import expression_poly
from accls.frontend.pragmas import clause_items

__all__ = ["DeviceKernel", "device_kernel"]

_PRAGMA = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+(acc|omp)\b", re.MULTILINE)
_COMPUTE = {
    "acc": ("parallel loop", "kernels loop", "serial loop"),
    "omp": ("target",),
}
# `if`/`self`: the kernel may run on the host, on host data; `device`: on another
# device than the caller's data; the rest return early or bypass the present data.
_BANNED = {
    "async",
    "nowait",
    "deviceptr",
    "is_device_ptr",
    "wait",
    "depend",
    "if",
    "self",
    "device",
    "has_device_addr",
}
_DATA = {
    "copy",
    "copyin",
    "copyout",
    "create",
    "present",
    "pcopy",
    "pcopyin",
    "pcopyout",
    "pcreate",
    "present_or_copy",
    "present_or_copyin",
    "present_or_copyout",
    "map",
}
_ITEM = re.compile(r"^([A-Za-z_]\w*)\s*((?:\[[^\[\]]*\])*)\s*$")
_DIM = re.compile(r"\[([^\[\]:]*):([^\[\]]*)\]")
_CLAMP = re.compile(r"^\s*\(\s*(.+?)\s*>\s*0\s*\?\s*(.+?)\s*:\s*0\s*\)\s*$")


@dataclass(frozen=True, slots=True)
class DeviceKernel:
    """What one call of a kernel function moves, in its parameters' names."""

    dialect: str  # "acc" or "omp"
    params: tuple[str, ...]  # every parameter, in order
    arrays: tuple[bool, ...]  # per parameter: a pointer or an array
    uses: tuple[ArrayUse, ...]  # per nest and array (a parameter or a global)


def _compute(loop: Loop) -> str:
    """The dialect of the loop's offload compute directive, or ""."""
    for directive in loop.pragmas:
        if directive.name.startswith(_COMPUTE.get(directive.dialect, ("\0",))):
            return directive.dialect
    return ""


def _length(text: str) -> Poly | None:
    """A section length: `n - 2`, or as our clamp writes it, `(n - 2 > 0 ? n - 2 : 0)`.

    The clamp's value is the length wherever the loop runs at all.
    """
    clamp = _CLAMP.match(text)
    if clamp is not None and clamp.group(1) == clamp.group(2):
        return expression_poly(clamp.group(1))
    return expression_poly(text)


def _clause_box(loop: Loop, name: str) -> tuple[tuple[Poly, Poly], ...] | bool | None:
    """The section a data clause of the loop maps `name` with.

    None: no clause names it with a section; False: one does, unreadably.
    """
    for directive in loop.pragmas:
        for clause in directive.clauses:
            if clause.name not in _DATA or not clause.args:
                continue
            args = clause.args
            if clause.name == "map" and ":" in args.split("[", 1)[0]:
                args = args.split(":", 1)[1]
            for item in clause_items(args):
                found = _ITEM.match(item)
                if found is None or found.group(1) != name or not found.group(2):
                    continue
                box: list[tuple[Poly, Poly]] = []
                dims = _DIM.findall(found.group(2))
                if len(dims) != found.group(2).count("["):
                    return False
                for start, length in dims:
                    low = expression_poly(start) if start.strip() else Poly.const(0)
                    size = _length(length)
                    if low is None or size is None:
                        return False
                    box.append((low, size))
                return tuple(box)
    return None


def _clean(loop: Loop) -> bool:
    """True when no directive of the nest has a clause the caller cannot see past."""
    if loop.regions:
        return False  # inside a data or compute region of the function's own
    for inner in loop.walk():
        for directive in inner.pragmas:
            for clause in directive.clauses:
                if clause.name in _BANNED or "always" in (clause.args or ""):
                    return False
    return True


def device_kernel(fn: Function, source: SourceFile) -> DeviceKernel | None:
    """The kernel status of `fn`: what its offloaded loops move; None if no kernel."""
    if fn.pragmas:
        return None
    nests = [n for n in source.nests if n.function == fn.name]
    tops = [n for n in nests if _compute(n)]
    if not tops or not all(_clean(n) for n in tops):
        return None
    dialects = {_compute(n) for n in tops}
    if len(dialects) != 1:
        return None
    body = source.data[fn.span.start_byte : fn.span.end_byte]
    attached = sum(len(inner.pragmas) for n in nests for inner in n.walk())
    if len(_PRAGMA.findall(body)) != attached:
        return None  # a data, update or wait directive of its own
    if any(inner.pragmas for n in nests if n not in tops for inner in n.walk()):
        return None  # host loops with directives: not plain host code
    spans = [(n.span.start_byte, n.span.end_byte) for n in tops]

    def offloaded(at: int) -> bool:
        return any(start <= at < end for start, end in spans)

    def shared(name: str) -> bool:
        var = fn.lookup(name)
        if var is None:
            return any(g.name == name for g in source.globals)
        return var.scope == "param" and (var.pointers > 0 or bool(var.dims))

    for ref in fn.refs:
        base = ref.name.split("->")[0].split(".")[0]
        host = not offloaded(ref.span.start_byte)
        if (ref.subscripts or ref.deref) and shared(base) and host:
            return None  # the host touches the caller's array
    for call in fn.call_sites:
        if not offloaded(call.span.start_byte):
            return None  # host code we cannot see through
    uses: list[ArrayUse] = []
    for nest in tops:
        names = {r.name for r in nest.refs if r.subscripts or r.deref}
        decls = {n: array_decl(n, fn, source.globals) for n in names}
        guarded = nest_guard_facts(nest, fn, source)
        for use in array_uses(nest, decls, ref_guards=guarded):
            if not shared(use.name) or "->" in use.name or "." in use.name:
                return None  # a local's array, or a field
            box = _clause_box(nest, use.name)
            if box is False:
                return None
            if isinstance(box, tuple) and box != use.box:
                section = use.name + "".join(
                    f"[{s.render()}:{n.render()}]" for s, n in box
                )
                # The clause maps more than the loop writes: no longer an exact cover.
                use = replace(
                    use, box=box, section=section, known=True, exact_cover=False
                )
            uses.append(use)
    if not uses:
        return None
    return DeviceKernel(
        dialect=dialects.pop(),
        params=tuple(p.name for p in fn.params),
        arrays=tuple(p.pointers > 0 or bool(p.dims) for p in fn.params),
        uses=tuple(uses),
    )
