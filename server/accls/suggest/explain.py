"""The full report on one loop, as Markdown: "accls: explain this loop".

The hover shows the few lines that decide; this is everything behind them. It
lives below the server so that the command line's reports can use it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accls.analysis import Dependence, LoopFacts, ScalarClass, ScalarFact
from accls.analysis.cost import Estimate
from accls.suggest.inductions import InductionRewrite
from accls.suggest.suggestion import Suggestion
from accls.suggest.verdict import Decision, Verdict, decide, group_dependences

__all__ = ["LoopReport", "ModelAnswer", "Transfer", "explain_markdown"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelAnswer:
    """One model's answer for the loop, with its validation status in words."""

    label: str  # "OpenACC (GPU)"
    suggestion: Suggestion | None  # None: the loop is covered by an outer pragma
    status: str  # "compiles, no race found", "not checked yet", ...


@dataclass(frozen=True, slots=True)
class Transfer:
    """One array an offloaded loop moves: direction, section and estimated size."""

    section: str
    direction: str  # "to device", "from device", "both ways"
    size: str  # "n*m x double", or "unknown"


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopReport:
    """Everything known about one loop, for the hover and the full report."""

    facts: LoopFacts
    answers: tuple[ModelAnswer, ...]  # the user's model first
    transfers: tuple[Transfer, ...] = ()
    rewrite: InductionRewrite | None = None  # the counters' closed form, if any
    unseen: str = ""  # which headers the preprocessor could not read, if any
    fix_note: str = ""  # the `restrict` fix in words, when one is offered
    estimate: Estimate | None = None  # the cost model's view of the first answer
    data_note: str = ""  # the device lifetime that holds the loop, with its bytes
    pending: str = ""  # what is still being worked out, which may change a pragma

    @property
    def decision(self) -> Decision:
        """The verdict for the user's model (the first answer)."""
        first = self.answers[0] if self.answers else None
        if first is None:
            return decide(self.facts)
        return decide(
            self.facts,
            first.suggestion,
            covered=first.suggestion is None,
            estimate=self.estimate,
        )

    @property
    def head(self) -> str:
        """`for (i)` at line 12."""
        loop = self.facts.loop
        return f"`{loop.title}` at line {loop.line}"


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


def _answer(answer: ModelAnswer) -> list[str]:
    s = answer.suggestion
    if s is None:
        return [f"- {answer.label}: part of the enclosing loop's construct"]
    if s.existing is not None:
        return [f"- {answer.label}: already annotated `{s.existing}`"]
    if s.pragma is None:
        why = "; ".join(s.reasons) or "no safe pragma"
        return [f"- {answer.label}: none ({why})"]
    lines = [
        f"- {answer.label}: `{s.pragma.render()}`",
        f"  - source: {s.source}; validation: {answer.status}",
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
    out = ["## Induction variables", ""]
    for found in facts.inductions:
        out.append(
            f"- `{found.name}` advances by {found.step} in every iteration (line "
            f"{found.line}), so in iteration `{loop.var}` it holds its value from "
            f"before the loop plus {found.step} per iteration"
        )
    if rewrite is None:
        out.append("- no closed-form rewrite applies here (see why not above)")
        return out
    out.append(
        f'- the code action "Rewrite ... in closed form" puts {rewrite.summary}: '
        f"`{rewrite_finals(rewrite)}`; the loop then no longer changes "
        + ", ".join(f"`{n}`" for n in rewrite.names)
        + " and can run in parallel"
    )
    return out


def rewrite_finals(rewrite: InductionRewrite) -> str:
    """The statement the rewrite adds after the loop, on one line."""
    return rewrite.edits[-1][2].strip().replace("\n", " ").replace("\r", "")


def _section(title: str, lines: Sequence[str]) -> list[str]:
    return [f"## {title}", "", *lines, ""] if lines else []


def explain_markdown(report: LoopReport) -> str:
    """The full report on the loop: every reason, dependence, scalar and pragma."""
    facts = report.facts
    decision = report.decision
    verdict = decision.verdict
    out = [f"# accls: {report.head} is {verdict.value}", ""]
    if verdict is Verdict.SMALL and decision.cost:
        out.extend([f"Not worth it: {decision.cost}.", ""])
    elif verdict is Verdict.SMALL:
        out.extend(
            [
                f"It runs {decision.trip_count} iterations: too few for threads or "
                "a GPU to pay for starting them.",
                "",
            ]
        )
    if decision.estimate:
        out.extend([f"Cost model: {decision.estimate}.", ""])
    out.extend(
        _section(
            "Why not",
            [
                f"- line {o.line}: {o.message}"
                + (" (an assumption; see the settings)" if o.assumption else "")
                for o in facts.obstacles
            ],
        )
    )
    if report.fix_note:
        out.extend(_section("Fix", [report.fix_note]))
    if report.data_note:
        out.extend(_section("Device data", [report.data_note]))
    if report.unseen:
        out.extend(_section("Headers", [report.unseen]))
    out.extend(_section("Assuming", [f"- {a}" for a in facts.assumptions]))
    if facts.inductions:
        out.extend([*_inductions(facts, report.rewrite), ""])
    groups = group_dependences(facts)
    out.extend(
        _section(
            "Dependences carried by this loop",
            [f"- {g.render()}" for g in groups] or ["- none"],
        )
    )
    if len(groups) < len(facts.dependences):
        out.extend(
            _section("Each dependence", [_dependence(d) for d in facts.dependences])
        )
    scalars = [s for s in facts.scalars if s.cls is not ScalarClass.INDUCTION]
    out.extend(_section("Scalars", [_scalar(s) for s in scalars]))
    answers: list[str] = []
    for answer in report.answers:
        answers.extend(_answer(answer))
    out.extend(_section("Suggested pragmas", answers))
    out.extend(
        _section(
            "Data movement if offloaded (estimated)",
            [
                f"- `{m.section}` {m.direction}: "
                + (m.size if m.size != "unknown" else "size unknown")
                for m in report.transfers
            ],
        )
    )
    if facts.call_effects:
        out.extend(_section("Calls", [f"- {c}" for c in facts.call_effects]))
    return "\n".join(out).rstrip() + "\n"
