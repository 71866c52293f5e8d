"""Render suggestions as the CLI's JSON objects or as text for people."""

from __future__ import annotations

from typing import Any, TextIO

from accls.analysis.cost import Estimate
from accls.frontend import Span
from accls.suggest import Source, Suggestion, SuggestOptions
from accls.validation import Validation

__all__ = ["suggestion_json", "unread_loop_json", "write_text"]


def suggestion_json(
    path: str,
    suggestion: Suggestion,
    validation: Validation | None = None,
    lines: dict[int, int] | None = None,
    estimate: Estimate | None = None,
) -> dict[str, Any]:
    """The JSON object of the CLI contract for one suggestion.

    `lines` maps loop ids of the file to their lines, for `collapsed_into` and
    `inner_of`; `estimate` is the cost model's view of its pragma.
    """
    loop = suggestion.loop
    facts = suggestion.facts
    pragma = suggestion.pragma.render() if suggestion.pragma is not None else None
    parallel = pragma is not None or (
        suggestion.existing is not None and facts.parallel
    )
    by_id = {inner.id: inner for inner in loop.walk()}
    return {
        "file": path,
        "line": loop.line,
        "column": loop.column,
        "end_line": loop.span.end[0] + 1,
        "function": loop.function,
        "model": suggestion.options.dialect.value,
        "target": suggestion.options.target.value,
        "loop_variable": loop.var,
        "trip_count": loop.trip_count,
        "parallelizable": parallel,
        "pragma": pragma,
        "reasons": list(suggestion.reasons),
        "inner": suggestion.inner,
        "collapsed_lines": [by_id[i].line for i in suggestion.collapsed if i in by_id],
        "atomic": [
            {"line": a.span.line, "column": a.span.column, "pragma": a.pragma.render()}
            for a in suggestion.atomics
        ],
        "routines": [
            {
                "function": r.function,
                "line": r.line,
                "pragma": r.pragma.render(),
                "prototype": r.prototype,
            }
            for r in suggestion.routines
        ],
        "existing_pragma": suggestion.existing,
        "data_region": (
            {
                "line": suggestion.region.start.line,
                "end_line": suggestion.region.end.end[0] + 1,
                "pragma": suggestion.region.pragma.render(),
                "reasons": list(suggestion.region.reasons),
            }
            if suggestion.region is not None
            else None
        ),
        "assumptions": list(facts.assumptions),
        "validation": validation.as_json() if validation is not None else {},
        "source": suggestion.source.value,
        "alternatives": [
            {"pragma": alt.text, "source": alt.source.value, "why": alt.why}
            for alt in suggestion.alternatives
        ],
        "caution": suggestion.caution,
        "inductions": [
            {"name": i.name, "step": i.step, "line": i.line} for i in facts.inductions
        ],
        "collapsed_into": _line(suggestion.collapsed_into, lines),
        "inner_of": _line(suggestion.inner_of, lines),
        "estimate": estimate.as_json() if estimate is not None else None,
        "profitable": estimate.profitable if estimate is not None else None,
    }


def unread_loop_json(
    path: str,
    keyword: Span,
    opts: SuggestOptions,
    why: str = "in code that does not parse",
) -> dict[str, Any]:
    """The JSON object for a `for` loop that was not analysed, and why."""
    return {
        "file": path,
        "line": keyword.line,
        "column": keyword.column,
        "end_line": keyword.line,
        "function": None,
        "model": opts.dialect.value,
        "target": opts.target.value,
        "loop_variable": None,
        "trip_count": None,
        "parallelizable": False,
        "pragma": None,
        "reasons": [f"not analysed: the loop at line {keyword.line} is {why}"],
        "inner": False,
        "collapsed_lines": [],
        "atomic": [],
        "existing_pragma": None,
        "data_region": None,
        "assumptions": [],
        "validation": {},
        "source": "analysis",
        "alternatives": [],
        "caution": None,
        "collapsed_into": None,
        "inner_of": None,
        "estimate": None,
        "profitable": None,
    }


def _line(loop_id: int | None, lines: dict[int, int] | None) -> int | None:
    return None if loop_id is None or lines is None else lines.get(loop_id)


def write_text(
    stream: TextIO,
    items: list[tuple[str, Suggestion]],
    *,
    color: bool | None = None,
    estimates: dict[tuple[str, int], Estimate] | None = None,
) -> None:
    """Human-readable report: each loop, its pragma or refusal, and the reasons."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(
        file=stream, force_terminal=color, highlight=False, soft_wrap=True
    )
    if not items:
        console.print("no loops found")
        return
    for path, suggestion in items:
        loop = suggestion.loop
        where = f"{path}:{loop.line}:{loop.column}"
        head = loop.head
        console.print(
            f"[bold]{escape(where)}[/bold]  {escape(head)}"
            + ("  [dim](inner loop)[/dim]" if suggestion.inner else "")
        )
        if suggestion.pragma is not None:
            region = suggestion.region
            if region is not None and region.loops[0].id == loop.id:
                console.print(
                    f"  [magenta]{escape(region.pragma.render())}[/magenta]"
                    f"  [dim](data region, lines {region.start.line}-"
                    f"{region.end.end[0] + 1})[/dim]"
                )
            estimate = (estimates or {}).get((path, loop.id))
            late = (
                f"  [yellow]({escape(estimate.why)})[/yellow]"
                if estimate is not None and estimate.profitable is False
                else ""
            )
            console.print(
                f"  [green]{escape(suggestion.pragma.render())}[/green]{late}"
            )
            if estimate is not None:
                console.print(f"    [dim]cost: {escape(estimate.summary)}[/dim]")
            if suggestion.source is not Source.ANALYSIS:
                console.print(f"    [dim]from the {escape(suggestion.source)}[/dim]")
            if suggestion.caution:
                caution = escape(suggestion.caution)
                console.print(f"    [yellow]caution: {caution}[/yellow]")
            for atomic in suggestion.atomics:
                console.print(
                    f"  [green]{escape(atomic.pragma.render())}[/green]"
                    f"  [dim]at line {atomic.span.line}[/dim]"
                )
        elif suggestion.existing is not None:
            console.print(f"  [cyan]keeps {escape(suggestion.existing)}[/cyan]")
        else:
            console.print("  [red]not parallelized[/red]")
        for reason in suggestion.reasons:
            console.print(f"    - {escape(reason)}")
