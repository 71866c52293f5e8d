"""What the hover, the lenses and `accls.explainLoop` know of one loop.

`loop_report` gathers the facts, each model's answer with its validation
status, data movement and the fixes on offer, from cached work only: the
analysis and the validations already done.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from lsprotocol import types

from accls.frontend import Loop
from accls.pipeline import estimates_for
from accls.server.documents import WHOLE_FILE_MAX_BYTES, Document
from accls.server.language_server import AcclsServer
from accls.server.offers import (
    cached_validation,
    lifetime_note,
    restrict_note,
    suggestions_for,
)
from accls.server.suggestions import BufferAnalysis, data_moves, offers, pending
from accls.suggest import Dialect, Suggestion, SuggestOptions
from accls.suggest.explain import LoopReport, ModelAnswer, Transfer
from accls.suggest.inductions import rewrite_inductions

__all__ = ["EXPLAIN_LOOP", "explain_hint", "loop_report"]

EXPLAIN_LOOP = "accls.explainLoop"
"""The full report on the loop at `{uri, position}`: `{loop, title, markdown}`."""


def _status(doc: Document, options: SuggestOptions, s: Suggestion) -> str:
    checked = cached_validation(doc, s.loop.id, options)
    if checked is None:
        return "not checked yet (resolving the code action checks it)"
    if checked.withdrawn:
        return f"failed: {checked.withdrawn}"
    found = checked.validation.get(s.loop.id)
    checks = found.checks if found is not None else ()
    return "; ".join(checks) or "not validated (validation is off)"


def _label(options: SuggestOptions) -> str:
    model = "OpenACC" if options.dialect is Dialect.OPENACC else "OpenMP"
    return f"{model} ({options.target.value.upper()})"


def _answers(
    ls: AcclsServer, doc: Document, analysed: BufferAnalysis, loop_id: int
) -> tuple[ModelAnswer, ...]:
    """Each model's answer, the user's model first."""
    choices = list(offers(ls.settings))
    mine = ls.settings.suggest_options
    choices.sort(key=lambda o: (o.dialect, o.target) != (mine.dialect, mine.target))
    out: list[ModelAnswer] = []
    for options in choices:
        all_ = suggestions_for(analysed, options, False)
        found = next((s for s in all_ if s.loop.id == loop_id), None)
        checked = cached_validation(doc, loop_id, options) if found else None
        if checked is not None:
            # Resolved: show what was offered (a model pragma, its alternatives).
            found = next(
                (s for s in checked.suggestions if s.loop.id == loop_id), found
            )
        status = "" if found is None else _status(doc, options, found)
        out.append(ModelAnswer(label=_label(options), suggestion=found, status=status))
    return tuple(out)


def _unseen(analysed: BufferAnalysis) -> str:
    source = analysed.source
    if source.missing_headers:
        return (
            ", ".join(f"`{h}`" for h in source.missing_headers)
            + " not found: what it declares is unknown here (add its folder to "
            "`includePaths`)"
        )
    if source.missing_modules:
        return (
            ", ".join(f"module `{m}`" for m in source.missing_modules)
            + " not found in the workspace: what it declares is unknown here (add "
            "its folder to `includePaths`)"
        )
    return source.preprocessor_problem or ""


WHOLE_PENDING = (
    "whole file: still being analysed; an offload pragma may change once it is in "
    "(`present`, `routine vector`: they need every call of the file)"
)
_NOT_WHOLE = (
    "whole file: not analysed whole while it {}, so no `present` or `routine vector` "
    "from every call of the file"
)


def _pending(
    doc: Document, analysed: BufferAnalysis, answers: tuple[ModelAnswer, ...]
) -> str:
    """Why an offloaded pragma may lack what the whole-file passes would add."""
    offloaded = any(
        a.suggestion is not None
        and a.suggestion.pragma is not None
        and a.suggestion.offloaded
        for a in answers
    )
    if not offloaded or not pending(analysed):
        return ""
    if len(doc.data) > WHOLE_FILE_MAX_BYTES:
        return _NOT_WHOLE.format("is over 1 MB")
    if doc.tree.has_errors:
        return _NOT_WHOLE.format("does not parse")
    return WHOLE_PENDING


def loop_report(
    ls: AcclsServer,
    doc: Document,
    analysed: BufferAnalysis,
    loop: Loop,
    *,
    fixes: bool = True,
) -> LoopReport:
    """What the hover and the report say about `loop` (from cached work).

    `fixes`: also work out the `restrict` fix (one more analysis, cached).
    """
    facts = analysed.analysis(ls.settings.dialect).of(loop)
    moves = data_moves(analysed, facts) if facts.parallel else ()
    rewrite = (
        rewrite_inductions(analysed.source.text, facts) if facts.inductions else None
    )
    note = restrict_note(ls, doc, analysed, loop.id) if fixes else None
    answers = _answers(ls, doc, analysed, loop.id)
    first = answers[0].suggestion if answers else None
    estimate = (
        estimates_for(analysed.analysis(first.options.dialect), [first]).get(loop.id)
        if first is not None
        else None
    )
    return LoopReport(
        facts=facts,
        answers=answers,
        estimate=estimate,
        transfers=tuple(Transfer(m.section, m.direction, m.size) for m in moves),
        rewrite=rewrite,
        unseen=_unseen(analysed),
        fix_note=note or "",
        data_note=lifetime_note(ls, doc, analysed, loop) if fixes else "",
        pending=_pending(doc, analysed, answers),
    )


def explain_hint(ls: AcclsServer, uri: str, position: types.Position) -> str:
    """The hover's last line: a command link where the client follows them."""
    name = ls.client_name.lower()
    if "code" in name or "codium" in name:
        args = [
            {
                "uri": uri,
                "position": {"line": position.line, "character": position.character},
            }
        ]
        target = f"command:{EXPLAIN_LOOP}?{quote(json.dumps(args))}"
        return f"[Explain this loop]({target}): the full report"
    return f"Full report: `:AcclsExplainLoop` (the command `{EXPLAIN_LOOP}`)"
