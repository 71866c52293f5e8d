"""The hover on a loop, clangd-style: the verdict, what decides it, the pragmas.

At most HOVER_LINES lines; everything else is in the full report
(`accls.suggest.explain`), which the hover's last line points to. Plain-text
clients get the same lines without Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from accls.analysis import ObstacleCode
from accls.suggest.explain import LoopReport, ModelAnswer, rewrite_finals
from accls.suggest.verdict import (
    Decision,
    DependenceGroup,
    FixKind,
    Verdict,
    group_dependences,
)

__all__ = ["HOVER_LINES", "Offer", "plain_text", "render_hover"]

HOVER_LINES = 12
"""The longest hover, in lines, the explain hint included."""

Offer = ModelAnswer
"""One model's answer, as the hover shows it (the name the features use)."""

_DEPENDENCES_SHOWN = 3


def _why(report: LoopReport, decision: Decision) -> list[str]:
    if decision.verdict is Verdict.SMALL and decision.cost:
        return [f"- why: {decision.cost} ({decision.estimate})"]
    if decision.verdict is Verdict.SMALL:
        return [
            f"- why: it runs {decision.trip_count} iterations, too few to pay for "
            "starting threads or a GPU kernel"
        ]
    reason = decision.reason
    if reason is None:
        return []
    where = f"line {reason.line}: " if reason.line else ""
    out = [f"- why: {where}{reason.message}"]
    fix = _fix(report, decision)
    if fix:
        out.append(f"- fix: {fix}")
    others = len(report.facts.obstacles) - 1
    if others > 0:
        out.append(
            f"- and {others} more reason{'s' if others > 1 else ''} (full report)"
        )
    return out


def _fix(report: LoopReport, decision: Decision) -> str:
    if decision.fix is FixKind.RESTRICT:
        return (
            report.fix_note or "declare the pointers `restrict` if they never overlap"
        )
    rewrite = report.rewrite
    if decision.fix is FixKind.INDUCTION and rewrite is not None:
        return (
            f'the code action "Rewrite ... in closed form" puts {rewrite.summary}, '
            f"then `{rewrite_finals(rewrite)}` after the loop"
        )
    return ""


def _status(answer: ModelAnswer, shared: bool) -> str:
    s = answer.suggestion
    if s is None:
        return ""
    extra = [answer.status] if answer.status and not shared else []
    if s.source.value != "analysis":
        extra.insert(0, f"source: {s.source}")
    return f" · {'; '.join(extra)}" if extra else ""


def _answers(answers: Sequence[ModelAnswer], decision: Decision) -> list[str]:
    """A line per model with a pragma; a refusal only where it differs."""
    out: list[str] = []
    first = answers[0].suggestion if answers else None
    told = tuple(first.reasons) if first is not None else ()
    covered = all(a.suggestion is None for a in answers)
    if covered and answers:
        return ["- part of the enclosing loop's construct"]
    existing = {a.suggestion.existing if a.suggestion else None for a in answers}
    if len(existing) == 1 and None not in existing:
        return [f"- already annotated `{existing.pop()}`"]
    offered = [a for a in answers if a.suggestion and a.suggestion.pragma]
    statuses = {a.status for a in offered}
    shared = len(offered) > 1 and len(statuses) == 1
    for i, answer in enumerate(answers):
        s = answer.suggestion
        if s is None:
            out.append(f"- {answer.label}: part of the enclosing loop's construct")
        elif s.existing is not None:
            out.append(f"- {answer.label}: already annotated `{s.existing}`")
        elif answer.status.startswith("failed"):
            out.append(f"- {answer.label}: {answer.status}")
        elif s.pragma is not None:
            out.append(
                f"- {answer.label}: `{s.pragma.render()}`{_status(answer, shared)}"
            )
            if s.caution:
                out.append(f"  - caution: {s.caution}")
        elif (i > 0 and tuple(s.reasons) != told) or (i == 0 and not decision.reason):
            why = next((r for r in s.reasons if r not in told), None)
            why = why or (s.reasons[0] if s.reasons else "no safe pragma")
            out.append(f"- {answer.label}: none ({why})")
    if shared and next(iter(statuses)):
        out.append(f"- checks: {next(iter(statuses))}")
    return out


def _repeats(group: DependenceGroup, decision: Decision) -> bool:
    """Whether the decisive reason already says all the group says."""
    reason = decision.reason
    return (
        reason is not None
        and reason.code is ObstacleCode.DEPENDENCE
        and reason.variable == group.array
        and group.count == 1
    )


def render_hover(
    report: LoopReport, *, explain: str = "", markdown: bool = True
) -> str:
    """The short hover on a loop's header.

    `explain` is the hint to the full report (a command link or its name).
    """
    facts = report.facts
    decision = report.decision
    head = [f"**accls: {report.head} is {decision.verdict.value}**"]
    reasons = _why(report, decision)
    unseen = "modules" if facts.loop.fortran else "headers"
    notes = [f"- {unseen}: {report.unseen}"] if report.unseen else []
    if facts.assumptions:
        notes.append("- assuming: " + "; ".join(facts.assumptions))
    if report.data_note:
        notes.append(f"- {report.data_note}")
    if report.pending:
        notes.append(f"- {report.pending}")
    if facts.parallel and facts.call_effects:
        notes.append("- calls: " + "; ".join(facts.call_effects))
    answers = _answers(report.answers, decision)
    groups = group_dependences(facts)
    tail = ["", explain] if explain else []
    fixed = len(head) + len(reasons) + len(notes) + len(answers) + len(tail)
    room = HOVER_LINES - fixed
    shown = [f"- {g.render()}" for g in groups if not _repeats(g, decision)]
    if len(shown) > max(room, 1):
        keep = max(min(room, _DEPENDENCES_SHOWN) - 1, 0)
        more = len(shown) - keep
        shown = [*shown[:keep], f"- {more} more by array and kind (full report)"]
    lines = [*head, *reasons, *shown, *notes, *answers]
    lines = lines[: HOVER_LINES - len(tail)] + tail
    text = "\n".join(lines).rstrip() + "\n"
    return text if markdown else plain_text(text)


_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def plain_text(markdown: str) -> str:
    """The hover without Markdown: no emphasis, code marks or link targets."""
    out = []
    for line in markdown.splitlines():
        line = _LINK.sub(r"\1", line)
        if line.startswith("**") and line.endswith("**"):
            line = line[2:-2]
        out.append(line.replace("`", ""))
    return "\n".join(out) + "\n"
