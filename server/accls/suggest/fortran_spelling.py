"""Pragmas spelled the Fortran way: `!$omp parallel do`, `a(1:n)`, `!$omp end ...`."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from accls.frontend import Clause, Function, Loop, Poly, SourceFile, Var
from accls.frontend.exprs import expression_poly
from accls.frontend.pragmas import clause_items
from accls.suggest.pragma import Dialect, Pragma
from accls.suggest.regions import DataRegion
from accls.suggest.routines import RoutineEdit
from accls.suggest.suggestion import Atomic, Suggestion

__all__ = ["FortranPragma", "fortran_suggestions"]

_FREE_LIMIT = 132
_FIXED_LIMIT = 72
_OPS = {"&&": ".and.", "||": ".or.", "&": "iand", "|": "ior", "^": "ieor"}
_DATA = frozenset(
    {
        "copy",
        "copyin",
        "copyout",
        "create",
        "present",
        "no_create",
        "map",
        "pcopy",
        "pcopyin",
        "pcopyout",
        "pcreate",
        "present_or_copy",
        "deviceptr",
        "attach",
        "detach",
        "delete",
        "device",
        "host",
        "self",
        "to",
        "from",
        "use_device",
        "use_device_ptr",
        "is_device_ptr",
        "has_device_addr",
    }
)
_COPY_OUT = {"copyout": "copy", "pcopyout": "pcopy", "from": "tofrom"}
_SECTION = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*((?:\[[^\[\]]*\])*)\s*$")
_DIM = re.compile(r"\[([^\[\]:]*):([^\[\]]*)\]")
_C_OPS = (("&&", ".and."), ("||", ".or."), ("!=", "/="), ("!", ".not."))


@dataclass(frozen=True, slots=True)
class FortranPragma(Pragma):
    """A Pragma written as a Fortran directive (the clauses keep their C model)."""

    # Each clause's Fortran text; a clause dropped by repair drops its text too.
    spellings: tuple[tuple[Clause, str], ...] = ()
    fixed: bool = False  # fixed form: the sentinel in column 1, lines of 72
    # On a `do concurrent`: the `do` headers written below the directive, the
    # original header then commented out, and an `end do` per extra level.
    concurrent: tuple[str, ...] = ()

    def render(self) -> str:
        """The directive on one line: `!$acc parallel loop copyin(x(1:n))`."""
        return " ".join(self._parts())

    def _parts(self) -> list[str]:
        texts = dict(self.spellings)
        spelled = [texts.get(c) or _clause(c, {}) for c in self.clauses]
        return [f"!${self.dialect.sentinel} {_directive(self.directive)}", *spelled]

    def written(self, pad: str, newline: str) -> str:
        """As inserted: indented (free form), continued with `&` past the line limit."""
        limit = _FIXED_LIMIT if self.fixed else _FREE_LIMIT
        lead = "" if self.fixed else pad
        lines: list[str] = []
        current = lead
        for part in " ".join(self._parts()).split(" "):
            candidate = f"{current} {part}" if current.strip() else f"{current}{part}"
            if current.strip() and len(candidate) + 2 > limit:
                lines.append(current + ("" if self.fixed else " &"))
                current = f"{lead}!${self.dialect.sentinel}& {part}"
            else:
                current = candidate
        lines.append(current)
        lines += [f"{lead}{header}" for header in self.concurrent]
        return newline.join(lines)

    def head_prefix(self) -> str:
        """The `do concurrent` header the nest above replaces becomes a comment."""
        return "! " if self.concurrent else ""

    def end_lines(self) -> tuple[str, ...]:
        """An `end do` per level the nest adds, then the `end` directive if any."""
        extra = ("end do",) * max(0, len(self.concurrent) - 1)
        line = self.end_line()
        return (*extra, line) if line is not None else extra

    def end_line(self) -> str | None:
        """The closing line after the loop: experts close OpenMP loop constructs."""
        if self.dialect is Dialect.OPENMP and (
            "for" in self.directive.split() or self.directive.split()[-1] == "simd"
        ):
            return f"!$omp end {_directive(self.directive)}"
        return None

    def indent(self, pad: str) -> str:
        """Fixed form: a sentinel starts in column 1 (in column 7 it is a comment)."""
        return "" if self.fixed else pad

    def braces(self) -> bool:
        """Fortran regions end with an `end` directive, not a brace."""
        return False

    def region_end(self) -> str:
        """`!$acc end data` for a region this pragma opens."""
        return f"!${self.dialect.sentinel} end {_directive(self.directive)}"


def _directive(name: str) -> str:
    return " ".join("do" if w == "for" else w for w in name.split())


def _fortran_expr(text: str) -> str:
    for c_op, f_op in _C_OPS:
        text = text.replace(c_op, f_op)
    return text.replace(".not.=", "/=")


def _lookup(name: str, function: Function | None, source: SourceFile) -> Var | None:
    if function is not None:
        found = function.lookup(name)
        if found is not None:
            return found
    return next((g for g in source.globals if g.name == name), None)


def _bound(start: str, extra: Poly | None) -> str:
    poly = expression_poly(start)
    if poly is None or extra is None:
        return f"({start}) + ({extra.render() if extra else '1'})"
    return (poly + extra).render()


def _item(text: str, clause: str, var_of: dict[str, Var | None]) -> tuple[str, str]:
    """One data item in Fortran syntax; and the clause, copyout widened if whole."""
    match = _SECTION.match(text)
    if match is None:
        return text, clause
    name, dims_text = match.group(1), match.group(2)
    var = var_of.get(name)
    dims = _DIM.findall(dims_text)
    whole_known = (
        var is not None and var.dims and None not in var.dims and not var.pointers
    )
    if not dims:
        return name, clause
    if whole_known or (var is not None and var.dims and var.dims[0] is not None):
        assert var is not None
        full = len(dims) == len(var.dims) and all(
            expression_poly(lo) == Poly.const(0)
            and expression_poly(length) is not None
            and expression_poly(length) == expression_poly(str(dim))
            for (lo, length), dim in zip(dims, var.dims, strict=True)
        )
        if full or clause not in _COPY_OUT:
            return name, clause
        # Part of the array is written: moving it whole keeps the rest intact.
        return name, _COPY_OUT[clause]
    lows = var.lower_bounds if var is not None else ()
    parts: list[str] = []
    for pos, (lo, length) in enumerate(dims):
        low_text = lows[pos] if pos < len(lows) else "1"
        low = expression_poly(low_text) if low_text else None
        begin = _bound(lo, low)
        end_poly = expression_poly(f"({lo}) + ({length}) - 1")
        finish = _bound(
            end_poly.render() if end_poly else f"({lo}) + ({length}) - 1", low
        )
        parts.append(f"{begin}:{finish}")
    return f"{name}({', '.join(reversed(parts))})", clause


def _clause(clause: Clause, var_of: dict[str, Var | None]) -> str:
    if clause.args is None:
        return clause.name
    if not clause.name:
        return f"({clause.args})"
    args = clause.args
    name = clause.name
    if name in ("reduction", "in_reduction", "task_reduction") and ":" in args:
        op, rest = args.split(":", 1)
        return f"{name}({_OPS.get(op.strip(), op.strip())}:{rest})"
    if name in _DATA:
        kind = ""
        body = args
        if name == "map" and ":" in args.split("[")[0]:
            kind, body = args.split(":", 1)
            kind = kind.strip()
        items: list[str] = []
        widened = kind or name
        for item in clause_items(body):
            spelled, widened_item = _item(item, kind or name, var_of)
            items.append(spelled)
            if widened_item != (kind or name):
                widened = widened_item
        if kind:
            return f"map({widened}: {', '.join(items)})"
        return f"{widened}({', '.join(items)})"
    return f"{name}({_fortran_expr(args)})"


def _spell(
    pragma: Pragma, function: Function | None, source: SourceFile
) -> FortranPragma:
    if isinstance(pragma, FortranPragma):
        return pragma
    names = {
        m.group(1)
        for c in pragma.clauses
        for m in re.finditer(r"([A-Za-z_][\w.]*)\s*\[", c.args or "")
    }
    var_of = {n: _lookup(n, function, source) for n in names}
    # A copyout widened to copy for one item widens the clause: split it so only
    # that array is copied in.
    clauses: list[Clause] = []
    for clause in pragma.clauses:
        if clause.name in _COPY_OUT and clause.args:
            for item in clause_items(clause.args):
                clauses.append(Clause(clause.name, item))
        else:
            clauses.append(clause)
    return FortranPragma(
        pragma.dialect,
        pragma.directive,
        tuple(clauses),
        spellings=tuple((c, _clause(c, var_of)) for c in clauses),
        fixed=source.path.lower().endswith((".f", ".for", ".f77", ".ftn")),
    )


def _routine(edit: RoutineEdit, source: SourceFile) -> RoutineEdit:
    """`!$acc routine seq` goes after the procedure's first statement, inside it."""
    fn = source.function(edit.function)
    pragma = _spell(edit.pragma, fn, source)
    if fn is None:
        return replace(edit, pragma=pragma, end=None)
    data = source.data
    at = fn.span.start_byte
    while True:
        end = data.find(b"\n", at)
        if end < 0:
            end = len(data)
            break
        line = data[at:end].split(b"!")[0].rstrip()
        if not line.endswith(b"&"):
            break
        at = end + 1
    return replace(edit, start=min(end + 1, len(data)), pragma=pragma, end=None)


def _unplaceable(s: Suggestion) -> str | None:
    """Why a pragma cannot go on a loop of a `do concurrent` nest, if it cannot."""
    loop = s.loop
    if loop.in_concurrent:
        return (
            "not offered: this index is part of a `do concurrent` header, where no "
            "directive of its own fits (one on the header's first index covers it)"
        )
    folded = {inner.id for inner in loop.walk()[1:] if inner.id in s.collapsed}
    if any(inner.concurrent and inner.id in folded for inner in loop.walk()[1:]):
        return (
            "not offered: its `collapse` would reach into a `do concurrent` "
            "nest, which takes no loop directive"
        )
    indices = [header.split()[1] for header in loop.concurrent]
    live = [name for name in indices if name in loop.live_after]
    if live:
        return (
            f"not offered: `{live[0]}` is read after the `do concurrent`, which "
            "leaves it unchanged; the `do` nest a directive needs would change it"
        )
    return None


_REDUCTION_REASON = re.compile(r"^reduction\((&&|\|\||&|\||\^):")


def _fortran_reason(text: str) -> str:
    """A reason's clause in Fortran syntax: `reduction(.and.:s)`, not `&&`."""
    return _REDUCTION_REASON.sub(lambda m: f"reduction({_OPS[m.group(1)]}:", text)


def _concurrent_reason(loop: Loop) -> str:
    nest = ", ".join(f"`{h}`" for h in loop.concurrent)
    return (
        f"`do concurrent` written as the `do` nest it means ({nest}), its header "
        "kept as a comment: compilers take no loop directive on `do concurrent`"
    )


def fortran_suggestions(
    suggestions: tuple[Suggestion, ...], source: SourceFile
) -> tuple[Suggestion, ...]:
    """Each suggestion with its pragmas spelled for Fortran."""
    out: list[Suggestion] = []
    regions: dict[int, DataRegion] = {}
    for s in suggestions:
        if s.pragma is not None and s.existing is None:
            why = _unplaceable(s)
            if why is not None:
                s = replace(s, pragma=None, atomics=(), reasons=(*s.reasons, why))
        fn = source.function(s.loop.function)
        region = s.region
        if region is not None:
            key = region.loops[0].id
            if key not in regions:
                regions[key] = replace(region, pragma=_spell(region.pragma, fn, source))
            region = regions[key]
        s = replace(s, reasons=tuple(_fortran_reason(r) for r in s.reasons))
        pragma = _spell(s.pragma, fn, source) if s.pragma is not None else None
        if pragma is not None and s.loop.concurrent and s.existing is None:
            pragma = replace(pragma, concurrent=s.loop.concurrent)
            s = replace(s, reasons=(*s.reasons, _concurrent_reason(s.loop)))
        out.append(
            replace(
                s,
                pragma=pragma,
                atomics=tuple(
                    Atomic(a.span, _spell(a.pragma, fn, source)) for a in s.atomics
                ),
                routines=tuple(_routine(r, source) for r in s.routines),
                region=region,
            )
        )
    return tuple(out)
