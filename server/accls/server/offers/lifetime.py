"""The offer that keeps a function's arrays on the device across its kernel calls.

"Keep `u`, `r` on the device in `main()` across `axpy()`, `dot()`" is listed in the
function that owns the arrays. It needs the whole file (the kernel functions), while
listing only sees the function under the cursor: the whole file is analysed in the
document's queue once per version, and the action is listed once that is done.
Resolve checks the whole edit (the kernels' pragmas, `enter data`, `exit data`,
`update`, `present`): the file with it must compile and show no race or data error
that the kernels' own pragmas do not have.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from lsprotocol import types

from accls.pipeline import compiler_settings, estimates_for, lifetime_problem
from accls.server import progress
from accls.server.documents import Document, Slot
from accls.server.language_server import AcclsServer, queued
from accls.server.offers.key import ActionKind
from accls.server.offers.table import KIND, Listing, Offer, Resolving
from accls.server.suggestions import BufferAnalysis, analyze_buffer, listed
from accls.suggest import Suggestion, SuggestOptions, Target, with_inner
from accls.suggest.annotate import insertions
from accls.suggest.lifetime_edits import with_present
from accls.suggest.lifetimes import DeviceLifetime, propose_lifetimes

__all__ = ["LIFETIME", "WholeFile", "whole_file"]


@dataclass(frozen=True, slots=True)
class WholeFile:
    """The whole buffer's analysis, its offloaded suggestions and their lifetimes."""

    analysed: BufferAnalysis
    suggestions: tuple[Suggestion, ...]
    lifetimes: tuple[DeviceLifetime, ...]


_WHOLE: Slot[SuggestOptions, asyncio.Future[WholeFile]] = Slot("lifetime-whole")
_CHECKED: Slot[int, str] = Slot("lifetime-checked")
"""Per lifetime (its `enter` offset): why it was refused, or "" when it checks out."""


def _offload(ls: AcclsServer) -> SuggestOptions:
    preferred = ls.settings.suggest_options
    return SuggestOptions(
        preferred.dialect, Target.GPU, preferred.kernels, preferred.gpu
    )


def _compute(
    text: str,
    path: str,
    include: tuple[str, ...],
    ls: AcclsServer,
    opts: SuggestOptions,
) -> WholeFile:
    settings = ls.settings
    analysed = analyze_buffer(
        text, path, include, settings, ls.header_context(text, path), ls.programs(path)
    )
    analysis = analysed.analysis(opts.dialect)
    found = listed(analysed, opts)
    estimates = estimates_for(analysis, list(found))
    kept = tuple(
        s
        for s in found
        if s.pragma is None
        or (e := estimates.get(s.loop.id)) is None
        or e.profitable is not False
        or s.inner
    )
    return WholeFile(analysed, kept, propose_lifetimes(analysis, kept, opts))


def whole_file(ls: AcclsServer, doc: Document) -> asyncio.Future[WholeFile]:
    """The whole buffer's lifetimes at this version, computed once in its queue."""
    opts = _offload(ls)
    pending = doc.peek(_WHOLE, opts)
    if pending is None:
        text, path, include = doc.text, doc.path, ls.include_dirs(doc)
        pending = queued(
            ls.scheduler.run(
                doc, "interactive", lambda: _compute(text, path, include, ls, opts)
            )
        )
        doc.store(_WHOLE, opts, pending)
    return pending


def _ready(at: Listing) -> WholeFile | None:
    pending = whole_file(at.ls, at.doc)
    if not pending.done() or pending.cancelled() or pending.exception() is not None:
        return None
    return pending.result()


def _owner_at(whole: WholeFile, offset: int) -> DeviceLifetime | None:
    for lifetime in whole.lifetimes:
        fn = whole.analysed.source.function(lifetime.function)
        if fn is not None and fn.span.start_byte <= offset < fn.span.end_byte:
            return lifetime
    return None


def _listing(at: Listing) -> list[types.CodeAction]:
    fn = next(
        (
            f
            for f in at.analysed.source.functions
            if f.span.start_byte <= at.offset < f.span.end_byte
        ),
        None,
    )
    if fn is None or not fn.call_sites:
        return []  # no function calls: nothing to keep across
    whole = _ready(at)
    lifetime = _owner_at(whole, at.offset) if whole is not None else None
    if lifetime is None:
        return []
    why = at.doc.peek(_CHECKED, lifetime.enter)
    if why:
        return []
    key = at.key(ActionKind.LIFETIME, _offload(at.ls), lifetime.enter)
    moved = lifetime.moved
    return [
        types.CodeAction(
            title=f"{lifetime.title} ({moved.before} moved before, {moved.after} "
            "after)",
            kind=KIND,
            data=key.data(),
        )
    ]


def _chosen(whole: WholeFile, lifetime: DeviceLifetime) -> tuple[Suggestion, ...]:
    """The pragmas the lifetime relies on: the owner's and its kernels' loops."""
    functions = {lifetime.function, *lifetime.kernels}
    grew = True
    source = whole.analysed.source
    while grew:  # kernels that call kernels
        more = {
            c
            for name in functions
            if (fn := source.function(name)) is not None
            for c in fn.calls
            if source.function(c) is not None
        }
        grew = not more <= functions
        functions |= more
    out: list[Suggestion] = []
    for s in whole.suggestions:
        if s.loop.function in functions and s.pragma is not None and not s.inner:
            out.extend(with_inner(s, whole.suggestions))
    return tuple(out)


def _edits(
    doc: Document, whole: WholeFile, lifetime: DeviceLifetime
) -> list[types.TextEdit]:
    analysis = whole.analysed.analysis(lifetime.dialect)
    chosen = with_present(analysis, _chosen(whole, lifetime), [lifetime])
    index = doc.index
    out: list[types.TextEdit] = []
    for at, new in insertions(whole.analysed.source.text, chosen, (), [lifetime]):
        where = index.position(at)
        out.append(
            types.TextEdit(range=types.Range(start=where, end=where), new_text=new)
        )
    return out


async def _resolve(r: Resolving) -> types.CodeAction:
    ls, doc, key, action = r.ls, r.doc, r.key, r.action
    whole = await whole_file(ls, doc)
    lifetime = next((lt for lt in whole.lifetimes if lt.enter == key.loop), None)
    if lifetime is None:
        action.disabled = types.CodeActionDisabled(reason="the function changed")
        return action
    why = doc.peek(_CHECKED, key.loop)
    if why is None:
        text, path = whole.analysed.source.text, doc.path
        include = ls.include_dirs(doc)
        compiler = compiler_settings(ls.settings, include)
        analysis = whole.analysed.analysis(lifetime.dialect)
        chosen = _chosen(whole, lifetime)
        async with progress.report(ls, "accls: checking the lifetime", "compile check"):
            why = await ls.in_pool(
                doc,
                lambda: lifetime_problem(
                    text, path, analysis, chosen, [lifetime], compiler, include
                ),
            )
        doc.store(_CHECKED, key.loop, why)
    if why:
        action.disabled = types.CodeActionDisabled(reason=f"not offered: {why}")
        return action
    action.edit = types.WorkspaceEdit(changes={doc.uri: _edits(doc, whole, lifetime)})
    action.data = {**key.data(), "reasons": list(lifetime.reasons)}
    return action


LIFETIME = Offer(ActionKind.LIFETIME, _listing, _resolve)
