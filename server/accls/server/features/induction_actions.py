"""Code actions that rewrite induction variables in closed form, then parallelize.

A loop refused only because a counter such as `t` in `tmp[t++]` carries its
value offers, per model, "Rewrite `t` in closed form and parallelize": the
edit replaces the counter's uses by `t + 2*i`, sets `t` after the loop, and
inserts the pragma. Listing is cheap (one re-analysis of the function, cached);
resolve runs the compile and race checks on the rewritten text.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified

from accls.analysis import AnalysisOptions
from accls.server.app import AcclsServer
from accls.server.documents import Document
from accls.server.features import progress
from accls.server.features.action_key import ActionKey
from accls.server.suggestions import Analysed, Validated, offers, resolved
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target
from accls.suggest.annotate import insertions
from accls.suggest.inductions import InductionRewrite, parallel_after_rewrite

__all__ = ["KIND_NAME", "is_induction_action", "listing", "resolve"]

log = logging.getLogger(__name__)

KIND_NAME = "induction"
_KIND = types.CodeActionKind.RefactorRewrite

Rewritten = tuple[InductionRewrite, tuple[Suggestion, ...]]


def _label(options: SuggestOptions) -> str:
    if options.model is Dialect.OPENACC:
        return "OpenACC"
    return "OpenMP (CPU)" if options.target is Target.CPU else "OpenMP target"


def is_induction_action(data: Any) -> bool:
    """True for the `data` of an action this module listed."""
    return isinstance(data, dict) and data.get("kind") == KIND_NAME


def _rewritten(
    ls: AcclsServer, doc: Document, analysed: Analysed, loop: int, opts: SuggestOptions
) -> Rewritten | None:
    """The rewrite of `loop` and its suggestions afterwards (cached per version)."""
    cache_key = (KIND_NAME, loop, opts)
    cached: tuple[Rewritten | None] | None = doc.peek(cache_key)
    if cached is not None:
        return cached[0]
    facts = analysed.analysis(opts.model).of(
        next(x for x in analysed.source.loops() if x.id == loop)
    )
    found = parallel_after_rewrite(
        analysed.source.text,
        facts,
        opts,
        AnalysisOptions(ls.settings.assume_no_alias, opts.model.sentinel),
        doc.path,
        ls.include_dirs(doc),
    )
    doc.store(cache_key, (found,), per_function=True)
    return found


def listing(
    ls: AcclsServer, doc: Document, analysed: Analysed, offset: int
) -> list[types.CodeAction]:
    """The rewrite-and-parallelize actions of the innermost loop with inductions."""
    loops = analysed.loops_at(offset)
    model = ls.settings.suggest_options.model
    loop = next(
        (x for x in reversed(loops) if analysed.analysis(model).of(x).inductions),
        None,
    )
    if loop is None:
        return []
    actions: list[types.CodeAction] = []
    for options in offers(ls.settings):
        found = _rewritten(ls, doc, analysed, loop.id, options)
        if found is None:
            continue
        rewrite, (top, *_) = found
        key = ActionKey(
            doc.uri,
            doc.version,
            KIND_NAME,
            options.model,
            options.target,
            loop.id,
            options.kernels,
        )
        checked: Validated | None = doc.peek(("validated", key))
        if checked is not None and checked.withdrawn:
            continue
        names = ", ".join(f"`{n}`" for n in rewrite.names)
        pragma = top.pragma.render() if top.pragma is not None else ""
        actions.append(
            types.CodeAction(
                title=f"Rewrite {names} in closed form and parallelize with "
                f"{_label(options)}: `{pragma}`",
                kind=_KIND,
                data=key.data(),
            )
        )
    return actions


def _old_offset(rewrite: InductionRewrite, offset: int) -> int | None:
    """Where byte `offset` of the rewritten text stood in the old text."""
    shift = 0
    for start, end, new in rewrite.edits:
        new_start = start + shift
        if offset <= new_start:
            break
        if offset < new_start + len(new.encode("utf-8")):
            return None  # inside replaced text
        shift += len(new.encode("utf-8")) - (end - start)
    return offset - shift


def _edits(
    doc: Document, rewrite: InductionRewrite, suggestions: tuple[Suggestion, ...]
) -> list[types.TextEdit] | None:
    index = doc.index
    edits = [
        types.TextEdit(
            range=types.Range(start=index.position(start), end=index.position(end)),
            new_text=new,
        )
        for start, end, new in rewrite.edits
    ]
    for at, new in insertions(rewrite.text, suggestions):
        old = _old_offset(rewrite, at)
        if old is None:
            return None
        where = index.position(old)
        edits.append(
            types.TextEdit(range=types.Range(start=where, end=where), new_text=new)
        )
    return edits


async def resolve(ls: AcclsServer, action: types.CodeAction) -> types.CodeAction:
    """The rewrite plus the pragma, after the compile and race checks."""
    key = ActionKey.parse(action.data)
    doc = ls.documents.get(key.uri)
    if doc is None or doc.version != key.version:
        raise JsonRpcContentModified(f"{key.uri} changed since the action was listed")
    analysed = await ls.analysed(doc, key.loop)
    found = (
        _rewritten(ls, doc, analysed, key.loop, key.options)
        if analysed is not None
        and any(x.id == key.loop for x in analysed.source.loops())
        else None
    )
    if found is None:
        action.disabled = types.CodeActionDisabled(
            reason="the rewrite no longer applies"
        )
        return action
    rewrite, chosen = found
    checked: Validated | None = doc.peek(("validated", key))
    if checked is None:
        settings, include = ls.settings, ls.include_dirs(doc)
        async with progress.report(ls, "accls: checking the rewrite", "compile check"):
            checked = await ls.in_pool(
                doc,
                lambda: resolved(
                    rewrite.text,
                    doc.path,
                    chosen,
                    settings,
                    include,
                    backends=ls.backends,
                ),
            )
        doc.store(("validated", key), checked)
    edits = None if checked.withdrawn else _edits(doc, rewrite, checked.suggestions)
    if edits is None:
        action.edit = None
        action.disabled = types.CodeActionDisabled(
            reason=checked.withdrawn or "the pragma would land inside the rewrite"
        )
        return action
    action.edit = types.WorkspaceEdit(changes={doc.uri: edits})
    action.data = {**key.data(), "rewrite": rewrite.summary}
    return action
