"""Rewrite induction variables in closed form, as an expert does before a pragma.

`for (i = 0; i < n; i++) { re[i] = tmp[t++]; im[i] = tmp[t++]; }` becomes
`re[i] = tmp[t + 2*i]; im[i] = tmp[t + 2*i + 1];` with `t += 2*n` after the
loop. The loop no longer changes `t`, so inside it `t` keeps its value from
before the loop: it is the closed form's base and needs no new variable.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from accls.analysis import AnalysisOptions, Induction, LoopFacts, analyze_text
from accls.frontend import HeaderContext, Loop, Poly
from accls.suggest.options import SuggestOptions
from accls.suggest.rules import suggest_file
from accls.suggest.suggestion import Suggestion, with_inner

__all__ = [
    "InductionRewrite",
    "parallel_after_rewrite",
    "rewrite_all",
    "rewrite_inductions",
]

Edit = tuple[int, int, str]
"""Replace bytes [start, end) with the text."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InductionRewrite:
    """The edits that put a loop's induction variables in closed form."""

    loop: int  # the loop's id
    names: tuple[str, ...]
    edits: tuple[Edit, ...]  # sorted, disjoint, in byte offsets of the old text
    text: str  # the rewritten text
    summary: str  # one line for titles and hovers


def _iteration(loop: Loop) -> str | None:
    """C text for the iteration number k of `loop`: `i`, `i - 1`, `(i - lo) / 2`."""
    if loop.var is None or loop.step is None or loop.step == 0:
        return None
    lower = loop.lower
    if lower is None:
        if not loop.lower_text:
            return None
        lower = Poly.sym(f"({loop.lower_text})")
    var = Poly.sym(loop.var)
    offset = var - lower if loop.step > 0 else lower - var
    size = abs(loop.step)
    text = offset.render()
    return text if size == 1 else f"({text}) / {size}"


def _term(coeff: int, text: str) -> str:
    """`+ 2*k` style term (text already valid C), empty for a zero coefficient."""
    if coeff == 0:
        return ""
    sign = "+" if coeff > 0 else "-"
    simple = re.fullmatch(r"\w+", text) is not None
    body = text if simple else f"({text})"
    mag = abs(coeff)
    return f" {sign} {body}" if mag == 1 else f" {sign} {mag}*{body}"


def closed_form(name: str, step: int, k: str, offset: int) -> str:
    """`name + step*k + offset` as C text."""
    out = name + _term(step, k)
    if offset:
        out += f" {'+' if offset > 0 else '-'} {abs(offset)}"
    return out


def _bare(data: bytes, start: int, end: int) -> bool:
    """True when a sum may replace the expression at [start, end) unparenthesised.

    It may where its neighbours bind no tighter than `+` to its left and no
    tighter than `+`/`-` to its right: `[t]`, `f(t, ...)`, `x = t;`, `t + 1`.
    """
    head = data[:start].rstrip()
    tail = data[end:].lstrip()
    before, after = head[-1:], tail[:1]
    if before == b"=" and head[-2:-1] in (b"=", b"!", b"<", b">"):
        return False  # a comparison, not an assignment
    if before == b"+":
        left = head[:-1].rstrip()[-1:]
        if not (left.isalnum() or left in (b"_", b")", b"]")):
            return False  # a unary plus (`x * +t`) or `++`: keep parentheses
    if tail[:2] in (b"++", b"--", b"->"):
        return False
    return before in (b"[", b"(", b",", b"=", b"+", b"?", b":") and after in (
        b"]",
        b")",
        b",",
        b";",
        b"+",
        b"-",
        b"?",
        b":",
    )


def _remove_statement(data: bytes, start: int, end: int) -> Edit:
    """Delete a statement, and its line when nothing else is on it."""
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", end)
    line_end = len(data) if line_end < 0 else line_end
    if not data[line_start:start].strip() and not data[end:line_end].strip():
        return (line_start, min(line_end + 1, len(data)), "")
    while start > line_start and data[start - 1 : start] in (b" ", b"\t"):
        start -= 1
    return (start, end, "")


def _final_value(loop: Loop, found: Induction) -> str | None:
    """The statement that leaves `found` with the value the loop would have left."""
    if loop.trip_count is None or loop.lower is None or loop.upper is None:
        return None
    count = loop.trip_count
    advance = f"{found.step}*({count})" if found.step != 1 else f"({count})"
    if re.fullmatch(r"\w+", count):
        advance = count if found.step == 1 else f"{found.step}*{count}"
    update = f"{found.name} += {advance};"
    rising = (loop.step or 0) > 0
    span = loop.upper - loop.lower if rising else loop.lower - loop.upper
    inclusive = loop.cond_op in ("<=", ">=")
    if span.is_constant:
        return update if span.constant + int(inclusive) > 0 else None
    guards = (
        {"<": "<", "!=": "<", "<=": "<="}
        if rising
        else {
            ">": ">",
            "!=": ">",
            ">=": ">=",
        }
    )
    guard = guards.get(loop.cond_op or "")
    if guard is None:
        return None
    return (
        f"if ({_operand(loop.lower_text)} {guard} {_operand(loop.upper_text)}) {update}"
    )


def _operand(text: str) -> str:
    """`text` as an operand of a comparison: parenthesised unless a name or number."""
    return text if re.fullmatch(r"\w+", text) else f"({text})"


def rewrite_inductions(text: str, facts: LoopFacts) -> InductionRewrite | None:
    """The closed-form rewrite of every induction variable of a loop, if one exists."""
    loop = facts.loop
    k = _iteration(loop)
    if not facts.inductions or k is None or loop.block < 0:
        return None  # the final update needs a block to go into after the loop
    data = text.encode("utf-8", errors="surrogateescape")
    newline = "\r\n" if b"\r\n" in data else "\n"
    line_start = data.rfind(b"\n", 0, loop.span.start_byte) + 1
    head = data[line_start : loop.span.start_byte]
    pad = head[: len(head) - len(head.lstrip(b" \t"))].decode("utf-8", "replace")
    edits: list[Edit] = []
    finals: list[str] = []
    for found in facts.inductions:
        final = _final_value(loop, found)
        if final is None:
            return None
        finals.append(final)
        for use in found.uses:
            start, end = use.span.start_byte, use.span.end_byte
            if use.statement is not None:
                s = use.statement
                if (s.start_byte, s.end_byte) == (
                    loop.body.start_byte,
                    loop.body.end_byte,
                ):
                    edits.append((s.start_byte, s.end_byte, ";"))
                else:
                    edits.append(_remove_statement(data, s.start_byte, s.end_byte))
            elif use.discarded:
                edits.append((start, end, "(void)0"))
            else:
                value = closed_form(found.name, found.step, k, use.offset)
                if not _bare(data, start, end):
                    value = f"({value})"
                edits.append((start, end, value))
    tail = "".join(f"{newline}{pad}{final}" for final in finals)
    edits.append((loop.span.end_byte, loop.span.end_byte, tail))
    edits.sort()
    if any(a[1] > b[0] for a, b in itertools.pairwise(edits)):
        return None  # overlapping uses (`t++ + t`): not a rewrite to attempt
    out: list[bytes] = []
    last = 0
    for start, end, new in edits:
        out += [data[last:start], new.encode("utf-8")]
        last = end
    out.append(data[last:])
    names = tuple(found.name for found in facts.inductions)
    first = facts.inductions[0]
    summary = (
        f"`{first.name}` in closed form (`{closed_form(first.name, first.step, k, 0)}`"
        f" in iteration `{loop.var}`), then `{first.name}` set after the loop"
    )
    return InductionRewrite(
        loop=loop.id,
        names=names,
        edits=tuple(edits),
        text=b"".join(out).decode("utf-8", errors="surrogateescape"),
        summary=summary,
    )


def parallel_after_rewrite(
    text: str,
    facts: LoopFacts,
    options: SuggestOptions,
    analysis_options: AnalysisOptions,
    path: str | None = None,
    include_dirs: Sequence[str] = (),
    context: HeaderContext | None = None,
) -> tuple[InductionRewrite, tuple[Suggestion, ...]] | None:
    """The rewrite of a loop and its suggestions (inner loops included) afterwards.

    None unless the rewritten loop gets a pragma: a rewrite is offered only for
    what it buys.
    """
    rewrite = rewrite_inductions(text, facts)
    if rewrite is None:
        return None
    analysis = analyze_text(rewrite.text, path, include_dirs, analysis_options, context)
    after = suggest_file(analysis, options)
    top = next((s for s in after if s.loop.id == rewrite.loop and not s.inner), None)
    if top is None or top.pragma is None or top.existing is not None:
        return None
    return rewrite, with_inner(top, after)


def rewrite_all(
    text: str,
    analysis_options: AnalysisOptions,
    path: str | None = None,
    include_dirs: Sequence[str] = (),
    context: HeaderContext | None = None,
) -> tuple[str, tuple[InductionRewrite, ...]]:
    """The text with every induction rewrite that makes its loop parallel applied."""
    done: list[InductionRewrite] = []
    after = 0  # loops starting before this byte are settled
    while True:
        analysis = analyze_text(text, path, include_dirs, analysis_options, context)
        for facts in analysis.facts:
            if facts.loop.id < after or not facts.inductions:
                continue
            rewrite = rewrite_inductions(text, facts)
            if rewrite is None:
                continue
            again = analyze_text(
                rewrite.text, path, include_dirs, analysis_options, context
            )
            mine = next((f for f in again.facts if f.loop.id == rewrite.loop), None)
            if mine is None or not mine.parallel:
                continue
            done.append(rewrite)
            text = rewrite.text
            after = facts.loop.id + 1
            break
        else:
            return text, tuple(done)
