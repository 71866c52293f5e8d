"""Code actions that rewrite induction variables in closed form, then parallelize.

A loop refused only because a counter such as `t` in `tmp[t++]` carries its
value offers, per model, "Rewrite `t` in closed form and parallelize": the
edit replaces the counter's uses by `t + 2*i`, sets `t` after the loop, and
inserts the pragma. Listing is cheap (one re-analysis of the function, cached);
resolve runs the compile and race checks on the rewritten text.
"""

from __future__ import annotations

from lsprotocol import types

from accls.analysis import AnalysisOptions
from accls.server import progress
from accls.server.documents import Document, Slot
from accls.server.language_server import AcclsServer
from accls.server.offers.cache import VALIDATED, withdrawn
from accls.server.offers.key import ActionKind
from accls.server.offers.rewrites import finish_rewrite
from accls.server.offers.table import KIND, Listing, Offer, Resolving
from accls.server.suggestions import BufferAnalysis, offers, resolved
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target
from accls.suggest.inductions import InductionRewrite, parallel_after_rewrite

__all__ = ["INDUCTION"]

Rewritten = tuple[InductionRewrite, tuple[Suggestion, ...]]

_REWRITTEN: Slot[tuple[int, SuggestOptions], tuple[Rewritten | None]] = Slot(
    "rewritten", per_function=True
)
"""The rewrite of a loop for some options, or (None,) when there is none."""


def _label(options: SuggestOptions) -> str:
    if options.dialect is Dialect.OPENACC:
        return "OpenACC"
    return "OpenMP (CPU)" if options.target is Target.CPU else "OpenMP target"


def _rewritten(
    ls: AcclsServer,
    doc: Document,
    analysed: BufferAnalysis,
    loop: int,
    opts: SuggestOptions,
) -> Rewritten | None:
    """The rewrite of `loop` and its suggestions afterwards (cached per version)."""
    cached = doc.peek(_REWRITTEN, (loop, opts))
    if cached is not None:
        return cached[0]
    facts = analysed.analysis(opts.dialect).of(
        next(x for x in analysed.source.loops() if x.id == loop)
    )
    found = parallel_after_rewrite(
        analysed.source.text,
        facts,
        opts,
        AnalysisOptions(
            ls.settings.assume_no_alias,
            opts.dialect.sentinel,
            reassociate_float=ls.settings.reassociate_float,
        ),
        doc.path,
        ls.include_dirs(doc),
    )
    doc.store(_REWRITTEN, (loop, opts), (found,))
    return found


def _listing(at: Listing) -> list[types.CodeAction]:
    """The rewrite-and-parallelize actions of the innermost loop with inductions."""
    ls, doc, analysed = at.ls, at.doc, at.analysed
    loops = analysed.loops_at(at.offset)
    model = ls.settings.suggest_options.dialect
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
        key = at.key(ActionKind.INDUCTION, options, loop.id)
        if withdrawn(doc, key):
            continue
        names = ", ".join(f"`{n}`" for n in rewrite.names)
        pragma = top.pragma.render() if top.pragma is not None else ""
        actions.append(
            types.CodeAction(
                title=f"Rewrite {names} in closed form and parallelize with "
                f"{_label(options)}: `{pragma}`",
                kind=KIND,
                data=key.data(),
            )
        )
    return actions


async def _resolve(r: Resolving) -> types.CodeAction:
    """The rewrite plus the pragma, after the compile and race checks."""
    ls, doc, key, analysed, action = r.ls, r.doc, r.key, r.analysed, r.action
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
    checked = doc.peek(VALIDATED, key)
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
        doc.store(VALIDATED, key, checked)
    return finish_rewrite(
        action,
        doc,
        checked,
        rewrite.edits,
        rewrite.text,
        misfit="the pragma would land inside the rewrite",
        data={**key.data(), "rewrite": rewrite.summary},
    )


INDUCTION = Offer(ActionKind.INDUCTION, _listing, _resolve)
