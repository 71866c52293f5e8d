"""Model candidates for one loop: which loops to ask about, parse, repair, judge."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from accls.analysis import FileAnalysis, LoopFacts, ScalarClass
from accls.frontend import Loop
from accls.suggest import (
    Alternative,
    Pragma,
    Source,
    Suggestion,
    SuggestOptions,
    completion_pragma,
    parse_pragma,
    reference_suggestion,
    repair,
)

__all__ = [
    "Drafted",
    "agreement",
    "assumed_reference",
    "caution_for",
    "draft_candidates",
    "loops_to_prompt",
    "proven_dependence",
    "within_loops",
]


def within_loops(
    suggestions: Sequence[Suggestion], loops: frozenset[int]
) -> tuple[Suggestion, ...]:
    """The suggestions for the loops with ids `loops` and the loops inside them."""
    spans = [s.loop.span for s in suggestions if s.loop.id in loops]
    return tuple(
        s
        for s in suggestions
        if any(sp.start_byte <= s.loop.span.start_byte < sp.end_byte for sp in spans)
    )


def _has_pragma(s: Suggestion) -> bool:
    return s.pragma is not None or s.existing is not None


def loops_to_prompt(suggestions: Sequence[Suggestion]) -> list[Suggestion]:
    """Suggestions whose loop the model may answer, as one self-contained construct.

    A loop qualifies when the user wrote no pragma on it, it is not part of a
    construct on an enclosing loop (no enclosing pragma, not collapsed in),
    and, where the analysis refused it, no loop inside it has a pragma: a
    model pragma there would nest constructs the checks cannot judge.
    """
    by_id = {s.loop.id: s for s in suggestions}
    collapsed = {i for s in suggestions for i in s.collapsed}
    out: list[Suggestion] = []
    for s in suggestions:
        if s.existing is not None or s.inner or s.loop.id in collapsed:
            continue
        if s.loop.pragmas:
            continue
        inside = [by_id[lp.id] for lp in s.loop.walk()[1:] if lp.id in by_id]
        if any(_has_pragma(i) for i in inside if i.loop.id not in s.collapsed):
            continue
        if any(_encloses(o, s.loop) and _has_pragma(o) for o in suggestions):
            continue
        out.append(s)
    return out


def _encloses(outer: Suggestion, loop: Loop) -> bool:
    span = outer.loop.span
    return (
        outer.loop.id != loop.id
        and span.start_byte <= loop.span.start_byte
        and loop.span.end_byte <= span.end_byte
    )


def assumed_reference(
    analysis: FileAnalysis, loop: Loop, options: SuggestOptions
) -> Suggestion:
    """The analysis pragma for `loop`, or the one it would write without obstacles.

    Where the analysis refused, its pragma with the obstacles assumed away is
    the basis for repairing a model pragma's data clauses and sections.
    """
    reference = reference_suggestion(analysis, loop, options)
    if reference.pragma is not None:
        return reference
    facts = analysis.of(loop)
    assumed = replace(facts, parallel=True, obstacles=())
    patched = FileAnalysis(
        source=analysis.source,
        facts=tuple(assumed if f.loop.id == loop.id else f for f in analysis.facts),
    )
    hypothetical = reference_suggestion(patched, loop, options)
    if hypothetical.pragma is None:
        return reference
    return replace(hypothetical, facts=facts)


def proven_dependence(facts: LoopFacts) -> str | None:
    """Why the loop cannot run in parallel, when the analysis proved it; else None."""
    atomic = {ref.name for ref in facts.atomics}
    for dep in facts.dependences:
        if dep.exact and dep.carrier == facts.loop.id and dep.array not in atomic:
            obstacle = next(
                (
                    o
                    for o in facts.obstacles
                    if o.code == "dependence" and o.variable == dep.array
                ),
                None,
            )
            return obstacle.message if obstacle else f"a dependence on `{dep.array}`"
    for fact in facts.scalars:
        if fact.cls is ScalarClass.CARRIED:
            return fact.why or f"`{fact.name}` carries a value between iterations"
    return None


_NAMES = re.compile(r"`([A-Za-z_]\w*)(?:\(\))?`")


def caution_for(facts: LoopFacts) -> str:
    """The assumption a pragma on a loop the analysis refused relies on."""
    parts: list[str] = []
    for obstacle in facts.obstacles:
        names = _NAMES.findall(obstacle.message)
        if obstacle.code == "alias" and len(names) >= 2:
            parts.append(f"assumes `{names[0]}` and `{names[1]}` do not alias")
        elif obstacle.code == "call" and obstacle.variable:
            parts.append(f"assumes `{obstacle.variable}()` has no side effects")
        elif obstacle.code == "dependence" and obstacle.variable:
            parts.append(
                f"assumes iterations never touch the same `{obstacle.variable}` element"
            )
        else:
            parts.append(f"assumes this is safe although {obstacle.message}")
    unique = list(dict.fromkeys(parts))
    if not unique:
        return "assumes what the analysis could not prove"
    return "; ".join(unique)


def _clause_set(pragma: Pragma) -> set[str]:
    return {
        f"{c.name}({' '.join((c.args or '').split())})" if c.args else c.name
        for c in pragma.clauses
    }


def agreement(pragma: Pragma, reference: Pragma | None) -> float:
    """How far a candidate agrees with the analysis pragma: 0 to 1."""
    if reference is None:
        return 0.0
    if pragma.directive != reference.directive:
        return 0.0
    mine, theirs = _clause_set(pragma), _clause_set(reference)
    union = mine | theirs
    return 0.5 + 0.5 * (len(mine & theirs) / len(union) if union else 1.0)


def _collapsed_ids(pragma: Pragma, loop: Loop) -> tuple[int, ...]:
    clause = pragma.clause("collapse")
    digits = "".join(ch for ch in (clause.args or "") if ch.isdigit()) if clause else ""
    depth = int(digits) if digits else 1
    chain = [loop]
    while len(chain) < depth and chain[-1].perfect and chain[-1].children:
        chain.append(chain[-1].children[0])
    return tuple(lp.id for lp in chain[1:])


@dataclass(frozen=True, slots=True)
class Drafted:
    """A model candidate ready for validation, or dropped already (`dropped`)."""

    suggestion: Suggestion | None
    dropped: Alternative | None


def draft_candidates(
    base: Suggestion,
    reference: Suggestion,
    texts: Sequence[tuple[str, float]],
) -> list[Drafted]:
    """Parse and repair each completion for `base`'s loop; drop what cannot go."""
    out: list[Drafted] = []
    seen: set[str] = set()
    proven = proven_dependence(base.facts)
    for text, score in sorted(texts, key=lambda pair: -pair[1]):
        line = completion_pragma(text)
        pragma = parse_pragma(line) if line is not None else None
        shown = line or " ".join(text.split())[:120]
        if shown in seen:
            continue  # sampled twice: judged once, under its better score
        seen.add(shown)
        if pragma is None:
            out.append(
                Drafted(None, Alternative(shown, Source.MODEL, "not a pragma line"))
            )
            continue
        if pragma.dialect is not base.options.dialect:
            why = f"written in the wrong model (asked for {base.options.dialect.value})"
            out.append(Drafted(None, Alternative(shown, Source.MODEL, why)))
            continue
        if proven is not None:
            why = f"the analysis proved a dependence: {proven}"
            out.append(Drafted(None, Alternative(shown, Source.MODEL, why)))
            continue
        fixed = repair(pragma, reference)
        source = Source.REPAIRED if fixed.changes else Source.MODEL
        key = "repaired:" + fixed.pragma.render()
        if key in seen:
            continue  # repaired into a pragma a better-scored candidate became
        seen.add(key)
        reasons = (f"model candidate: {pragma.render()}", *fixed.changes)
        candidate = replace(
            base,
            pragma=fixed.pragma,
            reasons=reasons,
            inner=False,
            collapsed=_collapsed_ids(fixed.pragma, base.loop),
            atomics=reference.atomics if reference.pragma is not None else (),
            routines=reference.routines if reference.pragma is not None else (),
            region=None,
            source=source,
            score=score,
            withdrawn=None,  # `base` may be the analysis pragma the checks withdrew
        )
        out.append(Drafted(candidate, None))
    return out
