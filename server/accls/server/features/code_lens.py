"""`textDocument/codeLens`: one short verdict above each loop header.

Lenses come from the analysis alone, of the whole buffer once per version (in
the checks' lane, so hover and listing never wait behind it): they never run
the compile check nor wait for the workspace index. A click applies
the loop's action (`accls.applyLoopAction`: the code action's resolve, then
`workspace/applyEdit`) or opens the full report (`accls.explainLoop`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcInvalidParams

from accls.frontend import Loop
from accls.frontend.incremental import ByteRange
from accls.pipeline import estimates_for
from accls.server.documents import WHOLE_FILE_MAX_BYTES, Document, Slot
from accls.server.explanation import EXPLAIN_LOOP
from accls.server.language_server import (
    ANALYSED,
    AcclsServer,
    queued,
    until_changed,
)
from accls.server.offers import (
    KIND,
    OFFERS,
    ActionKey,
    ActionKind,
    Resolving,
    suggestions_for,
)
from accls.server.suggestions import BufferAnalysis
from accls.suggest import Dialect, Suggestion
from accls.suggest.verdict import Decision, FixKind, Verdict, decide, short_title

__all__ = ["APPLY_LOOP_ACTION", "code_lenses", "register"]

log = logging.getLogger(__name__)

APPLY_LOOP_ACTION = "accls.applyLoopAction"
"""Resolve the code action a lens names (its `data`) and apply its edit."""

_LENSES: Slot[None, tuple[types.CodeLens, ...]] = Slot("lenses")
"""The buffer's lenses at this version."""

_FIXES = {
    FixKind.RESTRICT: ActionKind.RESTRICT,
    FixKind.INDUCTION: ActionKind.INDUCTION,
}


def _model(ls: AcclsServer) -> str:
    dialect = ls.settings.suggest_options.dialect
    return "OpenACC" if dialect is Dialect.OPENACC else "OpenMP"


def _action(decision: Decision, ready: str) -> ActionKind | None:
    """What a click on the lens applies (None: it opens the explanation)."""
    if decision.verdict is Verdict.PARALLEL and ready:
        return ActionKind.LOOP
    if decision.verdict is Verdict.SERIAL:
        return _FIXES.get(decision.fix)
    return None


def _lens(
    ls: AcclsServer,
    doc: Document,
    loop: Loop,
    title: str,
    kind: ActionKind | None,
) -> types.CodeLens:
    """The lens of `loop`: it applies the `kind` action, or (None) explains."""
    where = doc.index.span_range(loop.keyword)
    if kind is not None:
        key = ActionKey.of(
            doc.uri, doc.version, kind, ls.settings.suggest_options, loop.id
        )
        command = types.Command(
            title=title, command=APPLY_LOOP_ACTION, arguments=[key.data()]
        )
    else:
        at = {"line": where.start.line, "character": where.start.character}
        command = types.Command(
            title=title,
            command=EXPLAIN_LOOP,
            arguments=[{"uri": doc.uri, "position": at}],
        )
    return types.CodeLens(range=where, command=command)


def _lenses(
    ls: AcclsServer, doc: Document, analysed: BufferAnalysis, span: ByteRange | None
) -> tuple[types.CodeLens, ...]:
    """The lenses of the loops of `analysed` (those inside `span`, if given)."""
    options = ls.settings.suggest_options
    analysis = analysed.analysis(options.dialect)
    listed = {s.loop.id: s for s in suggestions_for(analysed, options, False)}
    model = _model(ls)
    out: list[types.CodeLens] = []
    for loop in analysed.source.loops():
        if span is not None and not span.start <= loop.span.start_byte < span.end:
            continue  # a callee kept in the slice: its own function has its lenses
        facts = analysis.of(loop)
        found: Suggestion | None = listed.get(loop.id)
        estimate = (
            estimates_for(analysis, [found]).get(loop.id) if found is not None else None
        )
        decision = decide(facts, found, covered=found is None, estimate=estimate)
        if decision.verdict is Verdict.COVERED:
            continue  # the enclosing loop's lens speaks for it
        ready = model if found is not None and found.pragma is not None else ""
        title = short_title(decision, facts, ready)
        kind = _action(decision, ready)
        if decision.verdict is Verdict.PARALLEL and not ready:
            # The facts allow it but the model has no pragma (a call without a
            # device version, say): the explanation says why.
            title = f"parallel · no {model} pragma (explain)"
        out.append(_lens(ls, doc, loop, title, kind))
    return tuple(out)


def _cached_functions(ls: AcclsServer, doc: Document) -> list[types.CodeLens]:
    """A buffer too large to analyse whole: the functions already analysed."""
    out: list[types.CodeLens] = []
    for definition in doc.tree.definitions():
        pending = doc.peek(ANALYSED, definition.range)
        if pending is None or not pending.done() or pending.exception() is not None:
            continue
        out.extend(_lenses(ls, doc, pending.result(), definition.range))
    return out


async def code_lenses(ls: AcclsServer, doc: Document) -> list[types.CodeLens]:
    """Every loop's lens, from the analysis of the buffer at this version."""
    cached = doc.peek(_LENSES, None)
    if cached is not None:
        return list(cached)
    if len(doc.data) > WHOLE_FILE_MAX_BYTES:
        return _cached_functions(ls, doc)
    whole = await until_changed(doc, asyncio.shield(ls.whole(doc)))
    found = _lenses(ls, doc, whole, None)
    doc.store(_LENSES, None, found)
    return list(found)


async def apply_loop_action(ls: AcclsServer, args: tuple[Any, ...]) -> dict[str, Any]:
    """Resolve the action of a lens and ask the client to apply its edit."""
    key = ActionKey.parse(args[0] if args else None)
    doc = ls.documents.get(key.uri)
    if doc is None or doc.version != key.version:
        raise JsonRpcContentModified(f"{key.uri} changed since the lens was shown")
    analysed = await ls.analysed(doc, key.loop)
    action = types.CodeAction(title="accls", kind=KIND, data=key.data())
    resolved = await OFFERS[key.kind].resolve(Resolving(ls, doc, key, analysed, action))
    if resolved.disabled is not None or resolved.edit is None:
        why = resolved.disabled.reason if resolved.disabled else "no edit"
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"accls: not applied: {why}"
            )
        )
        return {"applied": False, "reason": why}
    answer = await ls.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(edit=resolved.edit, label=resolved.title)
    )
    if not answer.applied:
        log.info("the client did not apply %s: %s", key, answer.failure_reason)
    elif resolved.command is not None:
        # What a client runs after applying the action (the feedback record).
        handler = ls.protocol.fm.commands.get(resolved.command.command)
        if handler is not None:
            try:
                handler(*(resolved.command.arguments or ()))
            except Exception:  # a record lost costs nothing the user sees
                log.exception("%s after a lens failed", resolved.command.command)
    return {"applied": answer.applied, "title": resolved.title}


def _refresh(ls: AcclsServer) -> None:
    """Ask the client for fresh lenses, when it can be asked."""
    workspace = ls.client_capabilities.workspace
    lens = workspace.code_lens if workspace is not None else None
    if lens is not None and lens.refresh_support:
        queued(_ask_refresh(ls))


async def _ask_refresh(ls: AcclsServer) -> None:
    try:
        await ls.workspace_code_lens_refresh_async(None)
    except Exception as exc:  # a client that advertised it and then refused
        log.info("workspace/codeLens/refresh: %s", exc)


def register(server: AcclsServer) -> None:
    """`textDocument/codeLens` and `accls.applyLoopAction`."""

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions())
    async def code_lens(
        ls: AcclsServer, params: types.CodeLensParams
    ) -> list[types.CodeLens] | None:
        doc = ls.documents.get(params.text_document.uri)
        if doc is None or not ls.settings.code_lens:
            return None
        return await code_lenses(ls, doc)

    @server.command(APPLY_LOOP_ACTION)
    async def apply(ls: AcclsServer, *args: Any) -> dict[str, Any]:
        if not args or not isinstance(args[0], dict):
            raise JsonRpcInvalidParams(
                f"{APPLY_LOOP_ACTION}: expected an action's data"
            )
        return await apply_loop_action(ls, args)

    server.events.settings_changed.connect(lambda: _refresh(server))
    server.events.refreshed.connect(lambda: _refresh(server))
