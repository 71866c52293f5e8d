"""Code actions that declare pointer parameters `restrict`, then parallelize.

A loop refused only because two pointer parameters may overlap offers, per
model, "Add `restrict` to `y`, `x` (promise they never overlap) and
parallelize": the edit qualifies the parameters in the function's definition
and in its prototypes in the buffer, and inserts the pragma. Listing re-analyses
the function once (cached); resolve runs the compile and race checks on the
edited text. The promise is the user's: a caller that passes overlapping
buffers makes the program wrong, which the title and hover say.
"""

from __future__ import annotations

from lsprotocol import types

from accls.analysis import AnalysisOptions, LoopFacts, ObstacleCode, overlapping_calls
from accls.frontend import parse_source
from accls.server import progress
from accls.server.documents import Document, Slot
from accls.server.language_server import AcclsServer
from accls.server.offers.cache import VALIDATED, withdrawn
from accls.server.offers.key import ActionKind
from accls.server.offers.rewrites import finish_rewrite
from accls.server.offers.table import KIND, Listing, Offer, Resolving
from accls.server.suggestions import BufferAnalysis, Validated, offers, resolved
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target
from accls.suggest.restrict import RestrictRewrite, parallel_with_restrict

__all__ = ["RESTRICT", "restrict_note"]

Promised = tuple[RestrictRewrite, tuple[Suggestion, ...]]

_PROMISED: Slot[tuple[int, SuggestOptions], tuple[Promised | None]] = Slot(
    "restricted", per_function=True
)
"""The `restrict` edit of a loop for some options, or (None,) when there is none."""


def _label(options: SuggestOptions) -> str:
    if options.dialect is Dialect.OPENACC:
        return "OpenACC"
    return "OpenMP (CPU)" if options.target is Target.CPU else "OpenMP target"


def _only_aliasing(facts: LoopFacts) -> bool:
    return bool(facts.obstacles) and all(
        o.code is ObstacleCode.ALIAS for o in facts.obstacles
    )


def _promised(
    ls: AcclsServer,
    doc: Document,
    analysed: BufferAnalysis,
    loop: int,
    opts: SuggestOptions,
) -> Promised | None:
    """The `restrict` edit of `loop` and its suggestions after (cached per version)."""
    cached = doc.peek(_PROMISED, (loop, opts))
    if cached is not None:
        return cached[0]
    analysis = analysed.analysis(opts.dialect)
    facts = analysis.of(next(x for x in analysed.source.loops() if x.id == loop))
    found = (
        parallel_with_restrict(
            analysed.source.text,
            analysis,
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
        if _only_aliasing(facts)
        else None
    )
    doc.store(_PROMISED, (loop, opts), (found,))
    return found


def _title(rewrite: RestrictRewrite, options: SuggestOptions, top: Suggestion) -> str:
    names = ", ".join(f"`{n}`" for n in rewrite.names)
    pragma = top.pragma.render() if top.pragma is not None else ""
    they = "they never overlap" if len(rewrite.names) > 1 else "it overlaps nothing"
    return (
        f"Add `restrict` to {names} (promise {they}) and parallelize with "
        f"{_label(options)}: `{pragma}`"
    )


def _candidate(analysed: BufferAnalysis, offset: int, model: Dialect) -> int | None:
    """The outermost loop at `offset` that aliasing alone keeps serial."""
    analysis = analysed.analysis(model)
    return next(
        (x.id for x in analysed.loops_at(offset) if _only_aliasing(analysis.of(x))),
        None,
    )


def _listing(at: Listing) -> list[types.CodeAction]:
    """The add-`restrict`-and-parallelize actions of the loop under the cursor."""
    ls, doc, analysed = at.ls, at.doc, at.analysed
    loop = _candidate(analysed, at.offset, ls.settings.suggest_options.dialect)
    if loop is None:
        return []
    actions: list[types.CodeAction] = []
    for options in offers(ls.settings):
        found = _promised(ls, doc, analysed, loop, options)
        if found is None:
            continue
        rewrite, (top, *_) = found
        key = at.key(ActionKind.RESTRICT, options, loop)
        if withdrawn(doc, key):
            continue
        actions.append(
            types.CodeAction(
                title=_title(rewrite, options, top), kind=KIND, data=key.data()
            )
        )
    return actions


def restrict_note(
    ls: AcclsServer, doc: Document, analysed: BufferAnalysis, loop: int
) -> str | None:
    """The hover's line on the `restrict` fix of `loop`, when one is offered."""
    options = ls.settings.suggest_options
    facts = analysed.analysis(options.dialect).of(
        next(x for x in analysed.source.loops() if x.id == loop)
    )
    if not _only_aliasing(facts):
        return None
    found = _promised(ls, doc, analysed, loop, options)
    if found is None:
        return None
    return f"Quick fix: {found[0].summary}."


async def _resolve(r: Resolving) -> types.CodeAction:
    """The `restrict` qualifiers plus the pragma, after the compile and race checks."""
    ls, doc, key, analysed, action = r.ls, r.doc, r.key, r.analysed, r.action
    found = (
        _promised(ls, doc, analysed, key.loop, key.options)
        if analysed is not None
        and any(x.id == key.loop for x in analysed.source.loops())
        else None
    )
    if found is None:
        action.disabled = types.CodeActionDisabled(
            reason="adding `restrict` no longer makes this loop parallel"
        )
        return action
    rewrite, chosen = found
    checked = doc.peek(VALIDATED, key)
    if checked is None:
        settings, include = ls.settings, ls.include_dirs(doc)
        text, program = doc.text, ls.programs(doc.path)

        def check() -> Validated:
            # The listing saw one function; a caller elsewhere in the buffer, or
            # in another file, that passes one buffer twice makes the promise false.
            whole = parse_source(text, doc.path, include)
            broken = overlapping_calls(whole, rewrite.function, rewrite.names, program)
            if broken:
                return Validated(
                    suggestions=chosen,
                    validation={},
                    withdrawn=f"{broken[0]} passes one buffer for two of them, "
                    "so `restrict` would be false",
                    warnings=(),
                )
            return resolved(
                rewrite.text, doc.path, chosen, settings, include, backends=ls.backends
            )

        async with progress.report(ls, "accls: checking `restrict`", "compile check"):
            checked = await ls.in_pool(doc, check)
        doc.store(VALIDATED, key, checked)
    return finish_rewrite(
        action,
        doc,
        checked,
        rewrite.edits,
        rewrite.text,
        misfit="the pragma would land inside the edit",
        data={**key.data(), "restrict": list(rewrite.names)},
    )


RESTRICT = Offer(ActionKind.RESTRICT, _listing, _resolve)
