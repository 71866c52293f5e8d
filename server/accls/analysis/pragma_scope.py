"""What a written pragma means for a loop: parallel or not, collapse, scoping."""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.frontend import Directive, Function, Loop, SourceFile

__all__ = [
    "Scope",
    "associated_loops",
    "clause_names",
    "collapse_count",
    "innermost_private",
    "list_names",
    "loop_directive",
    "reduction_ops",
    "scope_of",
]

_OMP_LOOP_WORDS = frozenset({"for", "simd", "distribute", "taskloop", "loop"})
_OMP_PARALLEL_WORDS = frozenset({"parallel", "teams", "target", "taskloop"})
_ACC_COMPUTE = frozenset({"parallel", "kernels", "serial"})
_PRIVATIZING = frozenset({"private", "firstprivate", "lastprivate", "linear"})
_SHARING = _PRIVATIZING | {"shared"}
_NAME = re.compile(r"[A-Za-z_]\w*")


def _words(directive: Directive) -> set[str]:
    return set(directive.name.split())


def _enclosing_compute(loop: Loop) -> Directive | None:
    """The innermost enclosing OpenACC compute construct, if any."""
    found: Directive | None = None
    for region in loop.regions:
        d = region.directive
        if d.dialect == "acc" and _words(d) & {"parallel", "kernels", "serial"}:
            found = d
    return found


def _acc_parallel(directive: Directive, loop: Loop) -> bool:
    """True if an OpenACC loop directive asserts its iterations independent."""
    names = {c.name for c in directive.clauses}
    words = _words(directive)
    if "loop" not in words or names & {"seq", "auto"} or "serial" in words:
        return False
    if "independent" in names or "parallel" in words:
        return True
    if "kernels" in words:
        return False
    compute = _enclosing_compute(loop)
    if compute is None:
        return True  # an orphaned loop in a routine behaves as in `parallel`
    return "parallel" in _words(compute)


def loop_directive(loop: Loop, dialect: str) -> Directive | None:
    """The pragma of `dialect` on `loop` that runs it in parallel, if any."""
    for directive in loop.pragmas:
        if directive.dialect != dialect or directive.malformed:
            continue
        if dialect == "acc" and _acc_parallel(directive, loop):
            return directive
        if dialect == "omp" and _words(directive) & _OMP_LOOP_WORDS:
            return directive
    return None


def collapse_count(directive: Directive) -> int:
    """The `collapse(n)` count, 1 when absent or not a literal."""
    clause = directive.clause("collapse")
    if clause is None or clause.args is None or not clause.args.strip().isdigit():
        return 1
    return max(1, int(clause.args.strip()))


def associated_loops(loop: Loop, count: int) -> tuple[Loop, ...]:
    """The loops `collapse(count)` associates, as far as they nest perfectly."""
    out = [loop]
    while len(out) < count and out[-1].perfect and len(out[-1].children) == 1:
        out.append(out[-1].children[0])
    return tuple(out)


def list_names(args: str, step_after: bool = False) -> set[str]:
    """Variable names of a clause list: `a, b[0:n]`, `to: a`, `x, y: 2`."""
    depth = 0
    head = ""
    for char in args:
        depth += char in "(["
        head += char if depth == 0 else ""
        depth -= char in ")]"
    if ":" in head:
        parts = head.split(":", 1) if step_after else head.rsplit(":", 1)[1:]
        head = parts[0]
    return {m.group(0) for m in _NAME.finditer(head)}


def clause_names(directives: tuple[Directive, ...], names: frozenset[str]) -> set[str]:
    """Variables listed in any of the clauses `names` of the directives."""
    out: set[str] = set()
    for directive in directives:
        for clause in directive.clauses:
            if clause.name in names and clause.args:
                out |= list_names(clause.args, clause.name == "linear")
    return out


def innermost_private(directives: tuple[Directive, ...]) -> set[str]:
    """Variables the innermost directive naming them privatizes (outermost first).

    OpenMP's rule: `parallel private(s)` around `parallel shared(s)` leaves `s`
    shared in the inner region, so only the innermost data-sharing clause decides.
    """
    decided: dict[str, bool] = {}
    for directive in reversed(directives):
        here: dict[str, bool] = {}
        for clause in directive.clauses:
            if clause.name in _SHARING and clause.args:
                for name in list_names(clause.args, clause.name == "linear"):
                    here[name] = here.get(name, False) or clause.name != "shared"
        for name, private in here.items():
            decided.setdefault(name, private)
    return {name for name, private in decided.items() if private}


_REDUCING = frozenset({"reduction", "in_reduction"})


def reduction_ops(directives: tuple[Directive, ...]) -> dict[str, str]:
    """Variable -> operator of every `reduction(op:list)` clause.

    A `taskloop`'s `in_reduction` item is each task's own copy too, combined into
    the enclosing `taskgroup`'s reduction: for the loop, a reduction.
    """
    out: dict[str, str] = {}
    for directive in directives:
        for clause in directive.clauses:
            args = clause.args or ""
            if clause.name not in _REDUCING or ":" not in args:
                continue
            op_text, items = args.split(":", 1)
            op = op_text.split(",")[-1].strip()
            for name in list_names(items):
                out.setdefault(name, "+" if op == "-" else op)
    return out


@dataclass(frozen=True, slots=True)
class Scope:
    """The directives and declarations that decide how a loop's scalars are shared."""

    directives: tuple[Directive, ...]  # the loop's own and the enclosing ones
    private: frozenset[str]  # privatized by a clause, a default or a declaration
    all_private: bool  # `default(private|firstprivate)`
    lastprivate: frozenset[str]
    orphaned: bool  # no enclosing parallel construct in this function
    reductions: dict[str, str]
    # Declared in an enclosing parallel region and not privatized by the loop's own
    # construct: each thread reads back its own copy after the loop.
    region_locals: frozenset[str] = frozenset()


def _declared_in(fn: Function | None, start: int, end: int) -> set[str]:
    """Locals declared in the span: private to each thread, unless `static`."""
    if fn is None:
        return set()
    return {
        v.name
        for v in fn.locals
        if v.span is not None and start <= v.span.start_byte < end and not v.static
    }


def scope_of(loop: Loop, directive: Directive, source: SourceFile) -> Scope:
    """Collect the clauses and declarations that scope the loop's variables."""
    dialect = directive.dialect
    regions = [r for r in loop.regions if r.directive.dialect == dialect]
    own = tuple(d for d in loop.pragmas if d.dialect == dialect)
    directives = (*(r.directive for r in regions), *own)
    fn = source.function(loop.function)
    private = innermost_private(directives)
    private |= source.threadprivate
    parallel_words = _OMP_PARALLEL_WORDS if dialect == "omp" else _ACC_COMPUTE
    orphaned = not any(_words(d) & parallel_words for d in directives)
    teams = [r for r in regions if _words(r.directive) & parallel_words]
    for region in teams:
        private |= _declared_in(fn, region.span.start_byte, region.span.end_byte)
    # Only the innermost team's own locals, and only for a loop that starts no
    # team of its own: an outer region's local is shared by an inner team.
    region_locals: set[str] = set()
    if teams and not any(_words(d) & parallel_words for d in own):
        team = min(teams, key=lambda r: r.span.end_byte - r.span.start_byte)
        region_locals = _declared_in(fn, team.span.start_byte, team.span.end_byte)
    defaults = {
        (d.clause("default").args or "").strip()  # type: ignore[union-attr]
        for d in directives
        if d.clause("default") is not None
    }
    return Scope(
        directives=directives,
        private=frozenset(private),
        all_private=bool(defaults & {"private", "firstprivate"}),
        lastprivate=frozenset(clause_names(directives, frozenset({"lastprivate"}))),
        orphaned=orphaned,
        reductions=reduction_ops(directives),
        region_locals=frozenset(region_locals - innermost_private(own)),
    )
