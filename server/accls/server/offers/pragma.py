"""Offers that insert the analysis's pragmas: a loop, a model's answer, a data region.

Listing offers one action per model whose pragma the analysis can write, one that
asks the model about a refused loop (with a model backend), and "Wrap loops in a
data region" where a function has several offloaded loops. Resolve runs the
compile check and the race re-check: a suggestion that fails is returned
disabled, without an edit, and later listings of that version omit it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types

from accls.pipeline import estimates_for
from accls.server import progress
from accls.server.documents import Document
from accls.server.offers.applied import applied_command
from accls.server.offers.cache import (
    VALIDATED,
    remember_offer,
    suggestions_for,
    withdrawn,
)
from accls.server.offers.key import ActionKey, ActionKind
from accls.server.offers.table import KIND, Listing, Offer, Resolving
from accls.server.suggestions import (
    BufferAnalysis,
    Validated,
    offers,
    resolved,
)
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, with_inner
from accls.suggest.annotate import insertions
from accls.suggest.backends import BackendKind

__all__ = ["LOOP", "MODEL", "REGION", "offer_label"]

Chooser = Callable[[tuple[Suggestion, ...], ActionKey], tuple[Suggestion, ...]]


def offer_label(options: SuggestOptions) -> str:
    """The action's wording for a model and target."""
    if options.dialect is Dialect.OPENACC:
        return "Parallelize with OpenACC"
    if options.target is Target.CPU:
        return "Parallelize with OpenMP (CPU)"
    return "Offload with OpenMP target"


def _top(all_: tuple[Suggestion, ...], key: ActionKey) -> Suggestion | None:
    return next((s for s in all_ if s.loop.id == key.loop and not s.inner), None)


def _loop_offer(
    analysed: BufferAnalysis, options: SuggestOptions, offset: int
) -> Suggestion | None:
    """The innermost loop at `offset` whose pragma this model can write."""
    by_id = {s.loop.id: s for s in suggestions_for(analysed, options, False)}
    for loop in reversed(analysed.loops_at(offset)):
        found = by_id.get(loop.id)
        if found is None or found.inner:
            continue  # covered by an outer loop's construct: look further out
        if found.pragma is None or found.existing is not None:
            return None  # refused or annotated: the hover says why
        return found
    return None


def _routines_title(top: Suggestion) -> str:
    """`, and `#pragma acc routine seq` on `f()`` when the action marks callees."""
    declared = [r for r in top.routines if r.pragma.directive.startswith("declare red")]
    marked = [r for r in top.routines if r not in declared]
    title = "".join(f", and `{r.pragma.render()}`" for r in declared)
    if not marked:
        return title
    names = ", ".join(dict.fromkeys(f"`{r.function}()`" for r in marked))
    return f"{title}, and `{marked[0].pragma.render()}` on {names}"


def _list_loops(at: Listing) -> list[types.CodeAction]:
    ranked: list[tuple[bool, types.CodeAction]] = []
    preferred = at.ls.settings.suggest_options
    for options in offers(at.ls.settings):
        top = _loop_offer(at.analysed, options, at.offset)
        if top is None or top.pragma is None:
            continue
        key = at.key(ActionKind.LOOP, options, top.loop.id)
        if withdrawn(at.doc, key):
            continue
        remember_offer(at.doc, key, at.analysed)
        analysis = at.analysed.analysis(options.dialect)
        [estimate] = estimates_for(analysis, [top]).values()
        slow = estimate.profitable is False
        ranked.append(
            (
                slow,
                types.CodeAction(
                    title=f"{offer_label(options)}: `{top.pragma.render()}`"
                    + _routines_title(top)
                    + (f" ({estimate.why})" if slow else ""),
                    kind=KIND,
                    is_preferred=not slow
                    and (options.dialect, options.target)
                    == (preferred.dialect, preferred.target),
                    data=key.data(),
                ),
            )
        )
    # Ordered by expected benefit: the ones the cost model expects to pay off first.
    return [action for _, action in sorted(ranked, key=lambda r: r[0])]


def _loop_chosen(
    all_: tuple[Suggestion, ...], key: ActionKey
) -> tuple[Suggestion, ...]:
    top = _top(all_, key)
    if top is None or top.pragma is None or top.existing is not None:
        return ()
    return with_inner(top, all_)


def _list_model(at: Listing) -> list[types.CodeAction]:
    """With a model backend: ask it about the innermost loop the analysis refused."""
    if at.ls.settings.backend.kind is BackendKind.ANALYSIS:
        return []
    options = at.ls.settings.suggest_options
    by_id = {s.loop.id: s for s in suggestions_for(at.analysed, options, False)}
    for loop in reversed(at.analysed.loops_at(at.offset)):
        found = by_id.get(loop.id)
        if found is None or found.inner:
            continue
        if found.pragma is not None or found.existing is not None:
            return []
        key = at.key(ActionKind.MODEL, options, loop.id)
        if withdrawn(at.doc, key):
            return []
        remember_offer(at.doc, key, at.analysed)
        return [
            types.CodeAction(
                title=f"{offer_label(options)}: ask the model (the analysis refused "
                "this loop; the answer is validated before it is offered)",
                kind=KIND,
                data=key.data(),
            )
        ]
    return []


def _model_chosen(
    all_: tuple[Suggestion, ...], key: ActionKey
) -> tuple[Suggestion, ...]:
    top = _top(all_, key)
    if top is None or top.pragma is not None or top.existing is not None:
        return ()
    return (top,)


def _list_regions(at: Listing) -> list[types.CodeAction]:
    preferred = at.ls.settings.suggest_options
    offload = SuggestOptions(
        preferred.dialect, Target.GPU, preferred.kernels, preferred.gpu
    )
    fn = next(
        (
            f
            for f in at.analysed.source.functions
            if f.span.start_byte <= at.offset < f.span.end_byte
        ),
        None,
    )
    if fn is None:
        return []
    actions: list[types.CodeAction] = []
    seen: set[int] = set()
    for s in suggestions_for(at.analysed, offload, True):
        region = s.region
        if region is None or region.loops[0].id in seen:
            continue
        seen.add(region.loops[0].id)
        if not fn.span.start_byte <= region.start.start_byte < fn.span.end_byte:
            continue
        key = at.key(ActionKind.REGION, offload, region.loops[0].id)
        if withdrawn(at.doc, key):
            continue
        remember_offer(at.doc, key, at.analysed)
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


def _region_chosen(
    all_: tuple[Suggestion, ...], key: ActionKey
) -> tuple[Suggestion, ...]:
    members = [
        s
        for s in all_
        if s.region is not None and s.region.loops[0].id == key.loop and not s.inner
    ]
    out: list[Suggestion] = []
    for member in members:
        out.extend(with_inner(member, all_))
    return tuple(out)


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


async def _insert(choose: Chooser, r: Resolving) -> types.CodeAction:
    """The chosen pragmas' edit, after validation; disabled if withdrawn."""
    ls, doc, key, analysed, action = r.ls, r.doc, r.key, r.analysed, r.action
    if r.offered is not None:
        chosen = choose(r.offered.suggestions, key)
        text, program = r.offered.text, r.offered.program
    elif analysed is not None:
        regions = key.kind is ActionKind.REGION
        chosen = choose(suggestions_for(analysed, key.options, regions), key)
        text, program = analysed.source.text, analysed.acc.program
    else:
        chosen = ()
    if not chosen:
        action.disabled = types.CodeActionDisabled(reason="the loop is no longer there")
        return action
    checked = doc.peek(VALIDATED, key)
    if checked is None:
        settings, include = ls.settings, ls.include_dirs(doc)
        async with progress.report(ls, "accls: checking the pragma", "compile check"):
            checked = await ls.in_pool(
                doc,
                lambda: resolved(
                    text,
                    doc.path,
                    chosen,
                    settings,
                    include,
                    backends=ls.backends,
                    program=program,
                ),
            )
        doc.store(VALIDATED, key, checked)
    # Each backend warning once per settings (the hybrid retries after a pause).
    for warning in checked.warnings:
        ls.warn_once(f"accls: {warning}")
    if checked.withdrawn:
        action.edit = None
        action.disabled = types.CodeActionDisabled(reason=checked.withdrawn)
        return action
    edits, inserts = _edits(doc, text, checked.suggestions)
    action.edit = types.WorkspaceEdit(changes={doc.uri: edits})
    action.data = {**key.data(), **_provenance(checked)}
    if ls.settings.feedback.enabled and checked.suggestions and analysed is not None:
        action.command = applied_command(doc, analysed, checked.suggestions[0], inserts)
    return action


async def _resolve_loop(r: Resolving) -> types.CodeAction:
    return await _insert(_loop_chosen, r)


async def _resolve_model(r: Resolving) -> types.CodeAction:
    return await _insert(_model_chosen, r)


async def _resolve_region(r: Resolving) -> types.CodeAction:
    return await _insert(_region_chosen, r)


LOOP = Offer(ActionKind.LOOP, _list_loops, _resolve_loop)
MODEL = Offer(ActionKind.MODEL, _list_model, _resolve_model)
REGION = Offer(ActionKind.REGION, _list_regions, _resolve_region)
