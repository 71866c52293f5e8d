"""ACC302: offloaded loops whose copies repeat on every iteration of a host loop."""

from __future__ import annotations

import re

from accls.analysis.analyze import FileAnalysis
from accls.analysis.cost import constant_macros
from accls.analysis.data_clauses import Section, clause_sections, managed_arrays
from accls.analysis.data_kinds import REPEATED_TRANSFERS
from accls.analysis.findings import Finding, finding
from accls.analysis.pragma_scope import loop_directive
from accls.frontend import Directive, Loop, Poly, SourceFile, Var
from accls.frontend.arith import float_ops
from accls.frontend.exprs import expression_poly

__all__ = ["transfer_findings"]

_IDENT = re.compile(r"[A-Za-z_]\w*")
_MOVES = {"copy": 2, "copyin": 1, "copyout": 1}  # copy moves in and out
_SIZES = {"double": 8, "long": 8, "float": 4, "int": 4, "unsigned": 4}


def _is_compute(directive: Directive) -> bool:
    words = set(directive.name.split())
    if directive.dialect == "acc":
        return bool(words & {"parallel", "kernels", "serial"})
    return "target" in words and not words & {"enter", "exit", "update", "data"}


def _parents(source: SourceFile) -> dict[int, Loop]:
    return {child.id: loop for loop in source.loops() for child in loop.children}


def _sequential(loop: Loop) -> bool:
    """True if no pragma runs this loop in parallel or on the device."""
    return all(loop_directive(loop, d) is None for d in ("acc", "omp")) and not any(
        _is_compute(d) for d in loop.pragmas
    )


def _type(var: Var | None, macros: dict[str, str]) -> str:
    if var is None:
        return ""
    return macros.get(var.type, var.type)


def _bytes(section: Section, var: Var | None, macros: dict[str, str]) -> Poly | None:
    """Bytes one transfer of the section moves, when every extent is known."""
    if var is None:
        return None
    lengths = [expression_poly(length) for _, length in section.dims]
    rest = var.dims[len(section.dims) :] if not var.pointers else ()
    if not section.dims and (var.pointers or not var.dims):
        return None
    lengths += [expression_poly(d) if d is not None else None for d in rest]
    size = (
        8
        if var.pointers > len(section.dims)
        else _SIZES.get(_type(var, macros).split()[-1] if _type(var, macros) else "", 8)
    )
    total = Poly.const(size * _MOVES[section.kind])
    for length in lengths:
        if length is None:
            return None
        total = total * length
    return total


def _flops(loop: Loop, source: SourceFile, floats: frozenset[str]) -> Poly | None:
    """Floating `+ - * /` per execution of the nest: per body times trip counts."""
    text = source.data[loop.span.start_byte : loop.span.end_byte].decode(
        "utf-8", errors="replace"
    )
    nest = {inner.id: inner for inner in loop.walk()}
    parents = {c.id: p for p in loop.walk() for c in p.children}
    total = Poly()
    for offset, count in float_ops(text, floats):
        inner = nest.get(loop.span.start_byte + offset)
        weight = Poly.const(count)
        while inner is not None:
            trips = expression_poly(inner.trip_count or "")
            if trips is None:
                return None
            weight = weight * trips
            inner = parents.get(inner.id)
        total = total + weight
    return total


def _names(section: Section) -> set[str]:
    """Every identifier the section's bounds name."""
    return {
        name for pair in section.dims for text in pair for name in _IDENT.findall(text)
    }


def _render(poly: Poly | None, unit: str, values: dict[str, Poly]) -> str:
    """`about 16*n bytes`, with constant macros replaced by their values."""
    if poly is None:
        return f"an unknown number of {unit}"
    return f"about {poly.substitute(values).render()} {unit}"


def transfer_findings(analysis: FileAnalysis, dialect: str) -> list[Finding]:
    """Offloaded loops inside sequential loops that copy arrays every time."""
    source = analysis.source
    parents = _parents(source)
    managed = managed_arrays(source, dialect)
    macros = dict(source.macros)
    values = constant_macros(source)
    out: list[Finding] = []
    for loop in source.loops():
        directive = next(
            (d for d in loop.pragmas if d.dialect == dialect and _is_compute(d)), None
        )
        outer = parents.get(loop.id)
        while outer is not None and not _sequential(outer):
            outer = parents.get(outer.id)
        if directive is None or outer is None:
            continue
        held = {
            s.name
            for r in loop.regions
            if r.directive.dialect == dialect
            for s in clause_sections(r.directive)
        }
        # A section that follows the host loop moves a new chunk each time.
        chunked = {r.name for r in outer.refs if r.is_write and not r.subscripts}
        moved = [
            s
            for s in clause_sections(directive)
            if s.kind in _MOVES
            and s.name not in held | managed
            and not _names(s) & chunked
        ]
        if not moved:
            continue
        fn = source.function(loop.function)
        decls = {v.name: v for v in source.globals}
        if fn is not None:
            decls |= {v.name: v for v in (*fn.params, *fn.locals)}
        floats = frozenset(
            name
            for name, var in decls.items()
            if _type(var, macros).split()[-1:] in (["double"], ["float"])
        )
        sizes = [_bytes(s, decls.get(s.name), macros) for s in moved]
        total: Poly | None = Poly()
        for size in sizes:
            total = None if total is None or size is None else total + size
        region = "#pragma acc data" if dialect == "acc" else "#pragma omp target data"
        out.append(
            finding(
                REPEATED_TRANSFERS,
                directive.span or loop.keyword,
                line=loop.line,
                outer=outer.line,
                clauses=" ".join(s.clause for s in moved),
                bytes=_render(total, "bytes", values),
                flops=_render(
                    _flops(loop, source, floats), "floating-point operations", values
                ),
                region=region,
            )
        )
    return out
