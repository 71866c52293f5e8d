"""The hover text of a loop: Markdown that reads as well as plain text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accls.analysis import Dependence, LoopFacts, ScalarClass, ScalarFact
from accls.server.suggestions import DataMove
from accls.suggest import Suggestion
from accls.suggest.inductions import InductionRewrite

__all__ = ["Offer", "render_hover"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Offer:
    """One model's answer for the loop, with its validation status in words."""

    label: str  # "OpenACC (GPU)"
    suggestion: Suggestion | None  # None: the loop is covered by an outer pragma
    status: str  # "compiles, no race found", "not checked yet", ...


def _dependence(dep: Dependence) -> str:
    distance = ", ".join("?" if d is None else str(d) for d in dep.distance)
    exact = "" if dep.exact else f" (assumed: {dep.reason})" if dep.reason else ""
    return (
        f"- `{dep.array}`: {dep.kind.value} dependence from line {dep.source.line} "
        f"to line {dep.sink.line}, distance ({distance}){exact}"
    )


def _scalar(fact: ScalarFact) -> str:
    cls = fact.cls.value
    if fact.cls is ScalarClass.REDUCTION and fact.op is not None:
        cls = f"reduction({fact.op.value})"
    where = f" (line {fact.line})" if fact.line else ""
    why = f": {fact.why}" if fact.why else ""
    scope = ", declared inside" if fact.declared_inside else ""
    return f"- `{fact.name}`: {cls}{scope}{where}{why}"


def _offer(offer: Offer) -> list[str]:
    s = offer.suggestion
    if s is None:
        return [f"- {offer.label}: part of the enclosing loop's construct"]
    if s.existing is not None:
        return [f"- {offer.label}: already annotated `{s.existing}`"]
    if s.pragma is None:
        why = "; ".join(s.reasons) or "no safe pragma"
        return [f"- {offer.label}: none ({why})"]
    lines = [
        f"- {offer.label}: `{s.pragma.render()}`",
        f"  - source: {s.source}; validation: {offer.status}",
    ]
    lines.extend(f"  - {reason}" for reason in s.reasons)
    if s.caution:
        lines.append(f"  - caution: {s.caution}")
    lines.extend(
        f"  - dropped `{alt.text}` ({alt.source}): {alt.why}" for alt in s.alternatives
    )
    return lines


def _inductions(facts: LoopFacts, rewrite: InductionRewrite | None) -> list[str]:
    loop = facts.loop
    out = ["Induction variables:"]
    for found in facts.inductions:
        out.append(
            f"- `{found.name}` advances by {found.step} in every iteration (line "
            f"{found.line}), so in iteration `{loop.var}` it holds its value from "
            f"before the loop plus {found.step} per iteration"
        )
    if rewrite is None:
        out.append("  - no closed-form rewrite applies here (see why not above)")
        return out
    finals = rewrite.edits[-1][2].strip().replace("\n", " ").replace("\r", "")
    out.append(
        f'- the code action "Rewrite ... in closed form" puts {rewrite.summary}: '
        f"`{finals}`; the loop then no longer changes "
        + ", ".join(f"`{n}`" for n in rewrite.names)
        + " and can run in parallel"
    )
    return out


def render_hover(
    facts: LoopFacts,
    offers: Sequence[Offer],
    moves: Sequence[DataMove],
    rewrite: InductionRewrite | None = None,
    unseen: str = "",
) -> str:
    """Markdown for the hover on a loop's header.

    `unseen` says which headers the preprocessor could not read, if any.
    """
    loop = facts.loop
    head = f"for ({loop.var})" if loop.var else "for"
    verdict = "parallel" if facts.parallel else "not parallel"
    out = [f"**accls: `{head}` at line {loop.line} is {verdict}**", ""]
    if facts.obstacles:
        out.append("Why not:")
        out.extend(
            f"- line {o.line}: {o.message}"
            + (" (an assumption; see the settings)" if o.assumption else "")
            for o in facts.obstacles
        )
        out.append("")
    if unseen:
        out.extend([f"Headers: {unseen}", ""])
    if facts.assumptions:
        out.append("Assuming:")
        out.extend(f"- {a}" for a in facts.assumptions)
        out.append("")
    if facts.inductions:
        out.extend(_inductions(facts, rewrite))
        out.append("")
    out.append("Dependences carried by this loop:")
    out.extend([_dependence(d) for d in facts.dependences] or ["- none"])
    out.append("")
    scalars = [s for s in facts.scalars if s.cls is not ScalarClass.INDUCTION]
    if scalars:
        out.append("Scalars:")
        out.extend(_scalar(s) for s in scalars)
        out.append("")
    out.append("Suggested pragmas:")
    for offer in offers:
        out.extend(_offer(offer))
    out.append("")
    if moves:
        out.append("Data movement if offloaded (estimated):")
        out.extend(
            f"- `{m.section}` {m.direction}: {m.size}"
            if m.size != "unknown"
            else f"- `{m.section}` {m.direction}: size unknown"
            for m in moves
        )
    return "\n".join(out).rstrip() + "\n"
