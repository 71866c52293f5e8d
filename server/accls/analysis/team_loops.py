"""Whether `omp for` may share out a loop that each thread of a region runs whole.

In `#pragma omp parallel { ... for (...) ... }` each thread runs the whole loop.
`omp for` gives each thread a part of it instead, which is the same program only
when:

- every thread reaches the loop and runs the same iterations: no `if` or loop
  inside the region that decides whether (or how often) it runs, nor the loop's
  own header, reads a variable each thread has a copy of (declared in the region,
  or private to it) or the thread's number; `for (i = tid; i < n; i += nt)` is a
  share-out already, which `omp for` would cut again;
- it runs in no `single`, `master`, `critical`, `sections` or `task` (only one
  thread, or not the team, would reach the `omp for`);
- it leaves nothing in those per-thread variables but values dead after it: a
  thread's own array (`double local[n]`, or a `threadprivate` one) would hold
  only the part its thread ran.

An `acc parallel` region runs its plain code once per gang (gang-redundant), and
an `acc loop` there shares the loop out among the gangs: the same holds, with a
gang's own copies (declared in the region, or `private`) for the thread's.
"""

from __future__ import annotations

import re

from accls.analysis.model import LoopFacts, ScalarClass
from accls.frontend import Function, Loop, Region, SourceFile, Span

__all__ = ["team_loop_obstacle"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_PRIVATE_CLAUSES = {
    "omp": frozenset(
        {"private", "firstprivate", "lastprivate", "linear", "reduction", "copyin"}
    ),
    "acc": frozenset({"private", "firstprivate", "reduction"}),
}
# Constructs that only one thread, or a task rather than the team, runs.
_NOT_TEAM = frozenset(
    {"single", "master", "masked", "critical", "sections", "section", "task", "ordered"}
)
_THREAD_NUMBER = ("omp_get_thread_num", "omp_get_team_num", "omp_get_place_num")
_KEPT = frozenset({ScalarClass.PRIVATE, ScalarClass.INDUCTION, ScalarClass.SHARED})


def _inside(span: Span, outer: Span) -> bool:
    return outer.start_byte <= span.start_byte and span.end_byte <= outer.end_byte


def _team_region(loop: Loop) -> Region | None:
    """The innermost enclosing `omp parallel` or `acc parallel` (no loop in it).

    Not `omp target`/`teams`, whose teams are no one team, nor `acc kernels` or
    `acc serial`, where the compiler or a single gang runs the code.
    """
    found: Region | None = None
    for region in loop.regions:
        words = set(region.directive.name.split())
        if "parallel" not in words:
            continue
        if region.directive.dialect == "omp":
            found = None if words & {"target", "teams"} else region
        elif region.directive.dialect == "acc":
            found = None if "loop" in words else region
    return found


def _clause_names(region: Region) -> set[str]:
    names: set[str] = set()
    for clause in region.directive.clauses:
        kinds = _PRIVATE_CLAUSES.get(region.directive.dialect, frozenset())
        if clause.name in kinds and clause.args:
            args = clause.args.split(":", 1)[-1]
            names.update(_NAME.findall(re.sub(r"\[[^\]]*\]", "", args)))
    return names


def _per_thread(loop: Loop, region: Region, fn: Function | None) -> set[str]:
    """The names each thread of the region has its own copy of, at the loop."""
    names = _clause_names(region)
    for var in fn.locals if fn is not None else ():
        span = var.span
        if span is None or var.static or not _inside(span, region.span):
            continue
        if not _inside(span, loop.span):
            names.add(var.name)
    names.discard(loop.var or "")
    return names


def _thread_dependent(text: str, private: set[str]) -> str | None:
    """The per-thread name or thread-number call `text` reads, if any."""
    words: list[str] = _NAME.findall(text)
    return next((w for w in words if w in private or w in _THREAD_NUMBER), None)


def _base(name: str) -> str:
    return re.split(r"[\[.]|->", name, maxsplit=1)[0]


def team_loop_obstacle(facts: LoopFacts, source: SourceFile) -> str | None:
    """Why sharing out this loop, which each thread of a region runs, changes it.

    None when the loop sits in no such region, or when sharing it out keeps the
    program.
    """
    loop = facts.loop
    region = _team_region(loop)
    if region is None:
        return None
    omp = region.directive.dialect == "omp"
    share, who = ("`omp for`", "thread") if omp else ("`acc loop`", "gang")
    default = region.directive.clause("default")
    kind = (default.args or "").strip() if default is not None else "shared"
    if kind not in ("shared", "none"):
        return (
            f"every {who} of the region at line {region.span.line} runs this loop "
            f"with its own copies of the variables (`default({kind})`): {share} "
            "would leave each copy partly filled"
        )
    for inner in loop.regions:
        words = set(inner.directive.name.split())
        if (
            inner.directive.dialect == "omp"
            and words & _NOT_TEAM
            and _inside(inner.span, region.span)
            and inner.span != region.span
        ):
            return (
                f"the loop runs inside `{inner.directive.text.strip()}` (line "
                f"{inner.span.line}), which the whole team does not run: a "
                f"worksharing {share} there is not allowed"
            )
    private = _per_thread(loop, region, source.function(loop.function))
    if omp:
        private |= source.threadprivate  # each thread's own, globals as they are
    for outer in source.loops():
        # A `for` around the loop in the region whose variable only its header steps
        # counts alike on every thread, when its header reads nothing per-thread
        # (tested with the other branches below).
        if outer.id == loop.id or not _inside(loop.span, outer.body):
            continue
        if (
            _inside(outer.span, region.span)
            and outer.var
            and not any(
                r.is_write and r.name == outer.var and not _inside(r.span, outer.header)
                for r in outer.refs
            )
        ):
            private.discard(outer.var)
    header = source.data[loop.header.start_byte : loop.header.end_byte].decode(
        "utf-8", "replace"
    )
    found = _thread_dependent(header, private)
    if found is not None:
        return (
            f"each {who} of the region at line {region.span.line} runs this loop "
            f"whole, and its header reads `{found}`, which differs between {who}s: "
            f"the loop may already share the work out by hand, and {share} would "
            f"cut each {who}'s part again"
        )
    for branch in source.branches:
        if not _inside(loop.span, branch.span) or not _inside(branch.span, region.span):
            continue
        found = _thread_dependent(branch.condition, private)
        if found is not None:
            return (
                f"whether or how often each {who} reaches this loop depends on "
                f"`{found}` (line {branch.span.line}), which differs between {who}s: "
                f"every {who} must reach an {share} alike"
            )
    fn = source.function(loop.function)
    for exit_ in fn.exits if fn is not None else ():
        around = [
            b
            for b in source.branches
            if b.kind == "loop"
            and _inside(loop.span, b.span)
            and _inside(b.span, region.span)
        ]
        if any(_inside(exit_.span, b.span) for b in around) and not _inside(
            exit_.span, loop.span
        ):
            return (
                f"a loop around this one inside the region can be left early (line "
                f"{exit_.span.line}): {who}s may stop reaching the {share} at "
                "different turns"
            )
    classes = {fact.name: fact.cls for fact in facts.scalars}
    for ref in loop.refs:
        if not ref.is_write:
            continue
        name = _base(ref.name)
        for sub in ref.subscripts:
            found = _thread_dependent(sub.text, private)
            if found is not None:
                return (
                    f"the element `{ref.name}[{sub.text}]` written at line "
                    f"{ref.span.line} depends on `{found}`, which differs between the "
                    f"{who}s of the region at line {region.span.line}: each {who} "
                    f"writes its own part now, and {share} would cut that part again"
                )
        if name not in private:
            continue
        if ref.subscripts or ref.deref or ref.member or classes.get(name) not in _KEPT:
            return (
                f"`{name}` (written at line {ref.span.line}) is each {who}'s own in "
                f"the region at line {region.span.line}: every {who} fills its whole "
                f"copy now, but with {share} each copy would hold only its {who}'s "
                "part"
            )
    return None
