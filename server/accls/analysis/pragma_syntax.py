"""OpenMP pragmas the checker cannot read: bad text, unknown clauses, odd `depend`."""

from __future__ import annotations

import re

from accls.analysis.depend_items import split_depend
from accls.analysis.findings import UNREADABLE_PRAGMA, Finding, finding
from accls.analysis.mhp_constructs import first_word
from accls.frontend import Clause, Directive, Region, SourceFile

__all__ = ["OMP_CLAUSES", "depend_problem", "pragma_findings"]

OMP_CLAUSES = frozenset(
    """
    if num_threads default private firstprivate lastprivate shared copyin copyprivate
    reduction in_reduction task_reduction proc_bind allocate schedule collapse ordered
    nowait linear safelen simdlen aligned nontemporal order dist_schedule device map
    to from is_device_ptr use_device_ptr use_device_addr has_device_addr defaultmap
    num_teams thread_limit depend untied mergeable final priority grainsize num_tasks
    nogroup detach affinity filter hint read write update capture compare seq_cst
    acq_rel release acquire relaxed weak fail threads simd doacross inclusive exclusive
    bind uniform inbranch notinbranch link enter device_type indirect sizes partial
    full novariants nocontext destroy init use when otherwise at severity message
    align allocator uses_allocators atomic_default_mem_order reverse_offload
    unified_address unified_shared_memory dynamic_allocators ext_implementation_defined
    parallel for do sections taskgroup match adjust_args append_args interop
    initializer combiner
    """.split()
)
"""Clause names of OpenMP 5.2 (and the construct names `cancel` takes)."""

_OMP_DIRECTIVES = frozenset(
    """
    parallel for do sections section single master masked critical barrier taskwait
    taskgroup taskyield atomic flush ordered task taskloop simd target teams
    distribute declare threadprivate cancel cancellation loop scope requires allocate
    allocators depobj scan tile unroll metadirective interop dispatch error nothing
    assume assumes begin end workshare
    """.split()
)
"""First words of OpenMP 5.2 directives, those the model reads and those it skips."""
_FIRST = re.compile(r"#\s*pragma\s+omp\s+([A-Za-z_]\w*)")
_ITEM = re.compile(
    r"[A-Za-z_]\w*(\s*\[[^\]]*\])*(\s*(\.|->)\s*[A-Za-z_]\w*(\s*\[[^\]]*\])*)*"
)
_STRUCTURED = frozenset(
    {"parallel", "task", "single", "master", "masked", "critical", "sections"}
    | {"taskgroup", "target", "teams"}
)
_DEPEND_TYPES = frozenset(
    {"in", "out", "inout", "mutexinoutset", "inoutset", "depobj", "source", "sink"}
)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += char in "(["
        depth -= char in ")]"
        if depth < 0:
            return False
    return depth == 0


def depend_problem(clause: Clause) -> str:
    """Why a `depend` clause names no storage location the checker can follow."""
    args = clause.args or ""
    if args.strip() == "source":
        return ""
    split = split_depend(args)
    if split is None:
        return f"`depend({args})` has no dependence type before a `:`"
    kind, items = split
    if kind not in _DEPEND_TYPES:
        return f"`{kind}` is not a dependence type"
    if kind in ("source", "sink"):
        return ""
    for item in items:
        if item.startswith("*"):
            return (
                f"the `depend` item `{item}` goes through a pointer: what it points "
                "to decides what it orders"
            )
        if _ITEM.fullmatch(item) is None:
            return (
                f"the `depend` item `{item}` is an expression, not a variable or an "
                "array element: what it orders is unknown"
            )
    return ""


def _problem(directive: Directive) -> tuple[str, str] | None:
    """(problem, effect) for one directive, None when it reads cleanly."""
    text = directive.text
    if not directive.name:
        first = _FIRST.match(text)
        if first is not None and first.group(1) in _OMP_DIRECTIVES:
            return None  # a directive the model has no use for
        if first is None:
            return "no directive follows `omp`", "ignores it"
        return f"`{first.group(1)}` is not an OpenMP directive", "ignores it"
    if directive.malformed or not _balanced(text):
        return (
            "the text after the last clause cannot be read (an unclosed parenthesis?)",
            "reads the directive without it",
        )
    for clause in directive.clauses:
        if clause.name and clause.name not in OMP_CLAUSES:
            return f"`{clause.name}` is not an OpenMP clause", "ignores the clause"
        if clause.name == "reduction" and ":" not in (clause.args or ""):
            return (
                f"`reduction({clause.args or ''})` has no `:` between the operator "
                "and the variables",
                "ignores the clause",
            )
        if clause.name == "depend":
            why = depend_problem(clause)
            if why:
                return why, "does not let this `depend` order anything"
    return None


def _unbounded(source: SourceFile, region: Region) -> tuple[str, str] | None:
    """(problem, effect) when the statement a construct governs cannot be read."""
    span = region.directive.span
    if span is None or first_word(region) not in _STRUCTURED:
        return None
    body = source.data[span.end_byte : region.span.end_byte]
    head = body.decode("utf-8", "replace").strip().split("\n")[0].strip()
    macros = {name for name, _ in source.macros}
    word = re.match(r"[A-Za-z_]\w*", head)
    # A parse error on the statement's first line hides where it ends; one
    # further in is the region's own doubt (ACC123), its braces still bound it.
    first_line = body.split(b"\n", 1)[0] if body.strip() else b""
    lead = len(body) - len(body.lstrip())
    head_end = span.end_byte + lead + len(body.lstrip().split(b"\n", 1)[0])
    broken = bool(first_line) and any(
        span.end_byte <= e.start_byte <= head_end for e in source.errors
    )
    if word is not None and word.group(0) in macros and not head.endswith(";"):
        broken = True
    if not broken and _cut_at_pragma(source, span.end_byte, region.span.end_byte):
        return (
            f"the statement it governs (`{head[:40]}`) cannot be read: a pragma "
            "under an unbraced statement inside it cuts it short for the parser",
            "cannot bound the region; its verdicts inside are guesses",
        )
    if not broken:
        return None
    return (
        f"the statement it governs (`{head[:40]}`) cannot be read: a macro or a "
        "parse error hides where the region ends",
        "cannot bound the region; its verdicts inside are guesses",
    )


def _cut_at_pragma(source: SourceFile, start: int, end: int) -> bool:
    """True when the parser ended the statement at a pragma it could not place.

    A pragma is no statement in tree-sitter's C grammar: under an unbraced `if`
    or `for` (`if (c)` / `#pragma omp simd` / `for ...`) the parser closes the
    statement before it with an error, so the region seems to end there while
    the compiler's goes on through the statement after the pragma.
    """
    after = source.data[end:].lstrip()
    if not re.match(rb"#[ \t]*pragma\b", after):
        return False
    return any(start <= e.start_byte <= end for e in source.errors)


def pragma_findings(source: SourceFile) -> list[Finding]:
    """ACC128 for each OpenMP pragma of the file the checker cannot read whole."""
    out: list[Finding] = []
    seen: set[int] = set()
    for region in source.constructs:
        directive = region.directive
        span = directive.span
        if directive.dialect != "omp" or span is None or span.start_byte in seen:
            continue
        seen.add(span.start_byte)
        found = _problem(directive) or _unbounded(source, region)
        if found is None:
            continue
        problem, effect = found
        out.append(
            finding(
                UNREADABLE_PRAGMA,
                span,
                pragma=" ".join(directive.text.split()),
                line=span.line,
                problem=problem,
                effect=effect,
            )
        )
    return out
