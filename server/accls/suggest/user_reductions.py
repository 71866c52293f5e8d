"""`declare reduction` for a reduction over a C++ class that `operator+=` sums.

The front end marks `s += v[i]` on such a class (frontend/cpp_reducers.py) a
`+` reduction like a scalar's; the `reduction(+:s)` clause then needs the
class's reduction declared once, after the class's definition: a second edit of
the suggestion, like a routine's mark. OpenACC has no declared reductions, and
the device does not get one here: both are refused with that reason.
"""

from __future__ import annotations

import re

from accls.analysis import FileAnalysis, LoopFacts, ScalarClass
from accls.frontend import UserReduction
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Pragma, Target
from accls.suggest.routines import RoutineEdit

__all__ = ["declared_reductions"]


def _reducer(
    name: str, facts: LoopFacts, analysis: FileAnalysis
) -> UserReduction | None:
    source = analysis.source
    if not source.user_reductions:
        return None
    fn = source.function(facts.loop.function)
    var = fn.lookup(name) if fn is not None else None
    var = var or next((g for g in source.globals if g.name == name), None)
    # `Vec3 &s` is a pointer to the analysis; `s += e` on a real pointer is
    # pointer arithmetic, which the front end never reads as a class's sum.
    if var is None or var.pointers > 1 or var.dims:
        return None
    plain = var.type.replace("const", "").strip().rsplit("::", 1)[-1]
    return next((r for r in source.user_reductions if r.type_name == plain), None)


def _declared(text: str, cls: str) -> tuple[int, str] | None:
    """The line and text of the file's own `declare reduction(+ : cls : ...)`."""
    found = re.search(
        rf"#\s*pragma\s+omp\s+declare\s+reduction\s*\(\s*\+\s*:\s*"
        rf"{re.escape(cls)}\s*:[^\n]*",
        text,
    )
    if found is None:
        return None
    return text.count("\n", 0, found.start()) + 1, found[0]


def declared_reductions(
    facts: LoopFacts, analysis: FileAnalysis, opts: SuggestOptions
) -> tuple[tuple[RoutineEdit, ...], list[str], str | None]:
    """The `declare reduction` edits the loop's reductions need, reasons, a blocker."""
    edits: list[RoutineEdit] = []
    reasons: list[str] = []
    for fact in facts.scalars:
        if fact.cls is not ScalarClass.REDUCTION:
            continue
        found = _reducer(fact.name, facts, analysis)
        if found is None:
            continue
        cls = found.type_name
        member = next(
            (
                r
                for r in facts.loop.refs
                if r.name.startswith((f"{fact.name}.", f"{fact.name}->"))
            ),
            None,
        )
        if member is not None:
            return (
                (),
                [],
                (
                    f"`{fact.name}` is summed as a `{cls}`, but its member "
                    f"`{member.name}` is used at line {member.span.line} too: inside "
                    "a reduction it would hold one thread's partial sum"
                ),
            )
        if opts.dialect is Dialect.OPENACC:
            return (
                (),
                [],
                (
                    f"`{fact.name}` is a sum of the class `{cls}`: OpenACC reduces "
                    "only scalars of arithmetic type and has no `declare reduction` "
                    "for a class"
                ),
            )
        if opts.target is Target.GPU:
            return (
                (),
                [],
                (
                    f"`{fact.name}` is a sum of the class `{cls}`, which needs `omp "
                    "declare reduction`: accls declares it for the host only, not in "
                    "a device region"
                ),
            )
        pragma = Pragma(Dialect.OPENMP, found.directive())
        there = _declared(analysis.source.text, cls)
        if there is not None:
            line, written = there
            same = "".join(written.split()) == "".join(pragma.render().split())
            if not same:
                return (
                    (),
                    [],
                    (
                        f"`{fact.name}` is a sum of the class `{cls}`, whose `+` "
                        f"reduction the file declares itself at line {line}: not the "
                        "field sum accls checked, so what `reduction(+)` does is the "
                        "file's"
                    ),
                )
            reasons.append(f"`{cls}`'s `+` reduction is declared at line {line}")
            continue
        if all(e.pragma != pragma for e in edits):
            edits.append(
                RoutineEdit(
                    function=cls, start=found.after, pragma=pragma, line=found.line
                )
            )
        fields = ", ".join(f"`{f}`" for f in found.fields)
        reasons.append(
            f"declare reduction for `{cls}` after its definition (line {found.line}): "
            f"its `operator+=` only adds each field ({fields}) and `{cls}()` makes "
            "them zero, the identity of the sum"
        )
    return tuple(edits), reasons, None
