"""Code actions in two stages, as clangd's tweaks: a cheap listing, then resolve.

Listing uses the cached analysis of the function under the cursor and offers one
action per model whose pragma the analysis can write, plus "Wrap loops in a data
region" where a function has several offloaded loops. Resolve computes the edit
and runs the compile check and the race re-check: a suggestion that fails is
returned disabled, without an edit, and later listings of that version omit it.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcInvalidParams

from accls.server.app import AcclsServer
from accls.server.convert import InvalidRange
from accls.server.documents import Document
from accls.server.features import feedback, induction_actions, progress, quick_fixes
from accls.server.features.action_key import ActionKey
from accls.server.suggestions import (
    Analysed,
    Validated,
    listed,
    offers,
    resolved,
    with_inner,
)
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target
from accls.suggest.annotate import insertions
from accls.suggest.backends import BackendKind

__all__ = ["cached_validation", "offer_label", "register", "suggestions_for"]

log = logging.getLogger(__name__)

KIND = types.CodeActionKind.RefactorRewrite


def offer_label(options: SuggestOptions) -> str:
    """The action's wording for a model and target."""
    if options.model is Dialect.OPENACC:
        return "Parallelize with OpenACC"
    if options.target is Target.CPU:
        return "Parallelize with OpenMP (CPU)"
    return "Offload with OpenMP target"


def cached_validation(
    doc: Document, loop_id: int, options: SuggestOptions
) -> Validated | None:
    """The validation of an action on this loop resolved at this version, if any."""
    for key, value in doc.items("validated"):
        if (
            isinstance(key, ActionKey)
            and key.kind != "induction"
            and key.loop == loop_id
            and key.options == options
            and isinstance(value, Validated)
        ):
            return value
    return None


def suggestions_for(
    doc: Document, analysed: Analysed, options: SuggestOptions, regions: bool
) -> tuple[Suggestion, ...]:
    """Listed suggestions of a function's analysis (cached with the analysis)."""
    key = (options, regions)
    found = analysed.memo.get(key)
    if found is None:
        found = analysed.memo[key] = listed(analysed, options, regions=regions)
    return found


def _chosen(
    doc: Document, analysed: Analysed, key: ActionKey
) -> tuple[Suggestion, ...]:
    """The suggestions an action inserts (empty if it no longer applies)."""
    all_ = suggestions_for(doc, analysed, key.options, key.kind == "region")
    if key.kind == "model":
        top = next((s for s in all_ if s.loop.id == key.loop and not s.inner), None)
        if top is None or top.pragma is not None or top.existing is not None:
            return ()
        return (top,)
    if key.kind == "loop":
        top = next((s for s in all_ if s.loop.id == key.loop and not s.inner), None)
        if top is None or top.pragma is None or top.existing is not None:
            return ()
        return with_inner(top, all_)
    members = [
        s
        for s in all_
        if s.region is not None and s.region.loops[0].id == key.loop and not s.inner
    ]
    out: list[Suggestion] = []
    for member in members:
        out.extend(with_inner(member, all_))
    return tuple(out)


def _loop_offer(
    doc: Document, analysed: Analysed, options: SuggestOptions, offset: int
) -> Suggestion | None:
    """The innermost loop at `offset` whose pragma this model can write."""
    by_id = {s.loop.id: s for s in suggestions_for(doc, analysed, options, False)}
    for loop in reversed(analysed.loops_at(offset)):
        found = by_id.get(loop.id)
        if found is None or found.inner:
            continue  # covered by an outer loop's construct: look further out
        if found.pragma is None or found.existing is not None:
            return None  # refused or annotated: the hover says why
        return found
    return None


def _listing(
    ls: AcclsServer, doc: Document, analysed: Analysed, offset: int
) -> list[types.CodeAction]:
    actions: list[types.CodeAction] = []
    preferred = ls.settings.suggest_options
    for options in offers(ls.settings):
        top = _loop_offer(doc, analysed, options, offset)
        if top is None or top.pragma is None:
            continue
        key = ActionKey(
            doc.uri,
            doc.version,
            "loop",
            options.model,
            options.target,
            top.loop.id,
            options.kernels,
        )
        checked: Validated | None = doc.peek(("validated", key))
        if checked is not None and checked.withdrawn:
            continue
        actions.append(
            types.CodeAction(
                title=f"{offer_label(options)}: `{top.pragma.render()}`",
                kind=KIND,
                is_preferred=(options.model, options.target)
                == (preferred.model, preferred.target),
                data=key.data(),
            )
        )
    actions.extend(_model_offer(ls, doc, analysed, offset))
    offload = SuggestOptions(preferred.model, Target.GPU, preferred.kernels)
    fn = next(
        (
            f
            for f in analysed.source.functions
            if f.span.start_byte <= offset < f.span.end_byte
        ),
        None,
    )
    if fn is None:
        return actions
    seen: set[int] = set()
    for s in suggestions_for(doc, analysed, offload, True):
        region = s.region
        if region is None or region.loops[0].id in seen:
            continue
        seen.add(region.loops[0].id)
        if not fn.span.start_byte <= region.start.start_byte < fn.span.end_byte:
            continue
        key = ActionKey(
            doc.uri,
            doc.version,
            "region",
            offload.model,
            offload.target,
            region.loops[0].id,
            offload.kernels,
        )
        checked = doc.peek(("validated", key))
        if checked is not None and checked.withdrawn:
            continue
        count = len(region.loops)
        actions.append(
            types.CodeAction(
                title=f"Wrap {count} loop{'s' if count > 1 else ''} in a data region: "
                f"`{region.pragma.render()}`",
                kind=KIND,
                data=key.data(),
            )
        )
    return actions


def _model_offer(
    ls: AcclsServer, doc: Document, analysed: Analysed, offset: int
) -> list[types.CodeAction]:
    """With a model backend: ask it about the innermost loop the analysis refused."""
    if ls.settings.backend.kind is BackendKind.ANALYSIS:
        return []
    options = ls.settings.suggest_options
    by_id = {s.loop.id: s for s in suggestions_for(doc, analysed, options, False)}
    for loop in reversed(analysed.loops_at(offset)):
        found = by_id.get(loop.id)
        if found is None or found.inner:
            continue
        if found.pragma is not None or found.existing is not None:
            return []
        key = ActionKey(
            doc.uri,
            doc.version,
            "model",
            options.model,
            options.target,
            loop.id,
            options.kernels,
        )
        checked: Validated | None = doc.peek(("validated", key))
        if checked is not None and checked.withdrawn:
            return []
        return [
            types.CodeAction(
                title=f"{offer_label(options)}: ask the model (the analysis refused "
                "this loop; the answer is validated before it is offered)",
                kind=KIND,
                data=key.data(),
            )
        ]
    return []


def _provenance(checked: Validated) -> dict[str, Any]:
    """Where the resolved pragma came from, for the client and the tests."""
    top = checked.suggestions[0]
    return {
        "source": top.source,
        "caution": top.caution,
        "validation": checked.validation_json(top.loop.id),
    }


def _edits(
    doc: Document, text: str, suggestions: tuple[Suggestion, ...]
) -> tuple[list[types.TextEdit], list[tuple[int, str]]]:
    inserts = insertions(text, suggestions)
    index = doc.index
    edits = [
        types.TextEdit(
            range=types.Range(start=index.position(at), end=index.position(at)),
            new_text=new,
        )
        for at, new in inserts
    ]
    return edits, inserts


def _show_warnings(ls: AcclsServer, warnings: tuple[str, ...]) -> None:
    """Each backend warning once per settings (the hybrid retries after a pause)."""
    for warning in warnings:
        if warning in ls.shown_warnings:
            continue
        ls.shown_warnings.add(warning)
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"accls: {warning}"
            )
        )


async def resolve_action(ls: AcclsServer, action: types.CodeAction) -> types.CodeAction:
    """Compute the edit of a listed action and validate it."""
    if action.data is None and action.edit is not None:
        return action  # a quick fix: its edit came with the listing
    if induction_actions.is_induction_action(action.data):
        return await induction_actions.resolve(ls, action)
    key = ActionKey.parse(action.data)
    doc = ls.documents.get(key.uri)
    if doc is None or doc.version != key.version:
        raise JsonRpcContentModified(f"{key.uri} changed since the action was listed")
    analysed = await ls.analysed(doc, key.loop)
    chosen = _chosen(doc, analysed, key) if analysed is not None else ()
    if analysed is None or not chosen:
        action.disabled = types.CodeActionDisabled(reason="the loop is no longer there")
        return action
    text = analysed.source.text
    checked: Validated | None = doc.peek(("validated", key))
    if checked is None:
        settings, include = ls.settings, ls.include_dirs(doc)
        async with progress.report(ls, "accls: checking the pragma", "compile check"):
            checked = await ls.in_pool(
                doc,
                lambda: resolved(
                    text, doc.path, chosen, settings, include, backends=ls.backends
                ),
            )
        doc.store(("validated", key), checked)
    _show_warnings(ls, checked.warnings)
    if checked.withdrawn:
        action.edit = None
        action.disabled = types.CodeActionDisabled(reason=checked.withdrawn)
        return action
    edits, inserts = _edits(doc, text, checked.suggestions)
    action.edit = types.WorkspaceEdit(changes={doc.uri: edits})
    action.data = {**key.data(), **_provenance(checked)}
    if ls.settings.feedback.enabled and checked.suggestions:
        action.command = feedback.applied_command(
            doc, analysed, checked.suggestions[0], inserts
        )
    return action


def register(server: AcclsServer) -> None:
    """`textDocument/codeAction` and `codeAction/resolve`."""

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[KIND, types.CodeActionKind.QuickFix],
            resolve_provider=True,
        ),
    )
    async def code_action(
        ls: AcclsServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        doc = ls.documents.get(params.text_document.uri)
        if doc is None:
            return None
        try:
            start, _ = doc.index.byte_range(params.range)
        except InvalidRange as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        only = params.context.only
        actions: list[types.CodeAction] = []
        if not only or any(KIND.startswith(k) or k == "refactor" for k in only):
            analysed = await ls.analysed(doc, start)
            if analysed is not None:
                actions.extend(_listing(ls, doc, analysed, start))
                actions.extend(induction_actions.listing(ls, doc, analysed, start))
        if not only or types.CodeActionKind.QuickFix in only:
            actions.extend(
                await quick_fixes.listing(ls, doc, params.context.diagnostics)
            )
        if not _resolves(ls):
            actions = [await resolve_action(ls, a) for a in actions]
        return actions or None

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(
        ls: AcclsServer, params: types.CodeAction
    ) -> types.CodeAction:
        return await resolve_action(ls, params)


def _resolves(ls: AcclsServer) -> bool:
    """Whether the client resolves an action's edit lazily."""
    caps = ls.client_capabilities.text_document
    support = caps.code_action.resolve_support if caps and caps.code_action else None
    return support is not None and "edit" in support.properties
