"""The offer that keeps a function's arrays on the device across its kernel calls.

"Keep `u`, `r` on the device in `main()` across `axpy()`, `dot()`" is listed in the
function that owns the arrays. The analysis of the function under the cursor holds
the functions it calls (the slice keeps them), so the kernels are there; a kernel
named anywhere else in the file keeps its own data clauses (another caller may not
have the data present). Resolve checks the whole edit (the kernels' pragmas,
`enter data`, `exit data`, `update`, `present`): the file with it must compile and
show no race or data error that the kernels' own pragmas do not have.
"""

from __future__ import annotations

import re

from lsprotocol import types

from accls.analysis import ProgramSummaries
from accls.frontend import Loop
from accls.pipeline import compiler_settings, estimates_for, lifetime_problem
from accls.server import progress
from accls.server.documents import Document, Slot
from accls.server.language_server import AcclsServer
from accls.server.offers.cache import suggestions_for
from accls.server.offers.key import ActionKind
from accls.server.offers.rewrites import insertion_edits
from accls.server.offers.table import KIND, Listing, Offer, Resolving
from accls.server.suggestions import BufferAnalysis
from accls.suggest import Suggestion, SuggestOptions, Target, with_inner
from accls.suggest.annotate import insertions
from accls.suggest.lifetime_bytes import region_bytes
from accls.suggest.lifetime_edits import with_present
from accls.suggest.lifetimes import DeviceLifetime, propose_lifetimes

__all__ = ["LIFETIME", "lifetime_note"]

_COMMENT = re.compile(rb"/\*.*?\*/|//[^\n]*", re.DOTALL)

_LIFETIMES: Slot[
    tuple[int, ...], tuple[ProgramSummaries | None, tuple[DeviceLifetime, ...]]
] = Slot("lifetimes")
"""The lifetimes of a function's analysis, keyed by its loop nests, with the
other files' summaries they were computed with (the index may grow meanwhile)."""

_CHECKED: Slot[DeviceLifetime, str] = Slot("lifetime-checked")
"""Per lifetime: why it was refused, or "" when it checks out."""


def _offload(ls: AcclsServer) -> SuggestOptions:
    preferred = ls.settings.suggest_options
    return SuggestOptions(
        preferred.dialect, Target.GPU, preferred.kernels, preferred.gpu
    )


def _inserted(analysed: BufferAnalysis, opts: SuggestOptions) -> tuple[Suggestion, ...]:
    """The offloaded pragmas annotate would insert: those the cost model keeps."""
    found = suggestions_for(analysed, opts, False)
    estimates = estimates_for(analysed.analysis(opts.dialect), list(found))
    return tuple(
        s
        for s in found
        if s.inner
        or (e := estimates.get(s.loop.id)) is None
        or e.profitable is not False
    )


def _lifetimes(
    doc: Document, analysed: BufferAnalysis, opts: SuggestOptions
) -> tuple[DeviceLifetime, ...]:
    key = tuple(nest.id for nest in analysed.source.nests)
    analysis = analysed.analysis(opts.dialect)
    cached = doc.peek(_LIFETIMES, key)
    if cached is None or cached[0] is not analysis.program:
        found = propose_lifetimes(analysis, _inserted(analysed, opts), opts)
        cached = (analysis.program, found)
        doc.store(_LIFETIMES, key, cached)
    return cached[1]


def _owner_at(
    analysed: BufferAnalysis, lifetimes: tuple[DeviceLifetime, ...], offset: int
) -> DeviceLifetime | None:
    for lifetime in lifetimes:
        fn = analysed.source.function(lifetime.function)
        if fn is not None and fn.span.start_byte <= offset < fn.span.end_byte:
            return lifetime
    return None


def _listing(at: Listing) -> list[types.CodeAction]:
    opts = _offload(at.ls)
    lifetime = _owner_at(at.analysed, _lifetimes(at.doc, at.analysed, opts), at.offset)
    if lifetime is None:
        return []
    refused: str | None = at.doc.peek(_CHECKED, lifetime)
    if refused:
        return []
    key = at.key(ActionKind.LIFETIME, opts, lifetime.enter)
    moved = lifetime.moved
    return [
        types.CodeAction(
            title=f"{lifetime.title} ({moved.before} moved before, {moved.after} "
            "after)",
            kind=KIND,
            data=key.data(),
        )
    ]


def lifetime_note(
    ls: AcclsServer, doc: Document, analysed: BufferAnalysis, loop: Loop
) -> str:
    """The lifetime or data region that holds `loop`, with its bytes; or ""."""
    opts = _offload(ls)
    start, end = loop.span.start_byte, loop.span.end_byte
    for lifetime in _lifetimes(doc, analysed, opts):
        inside = loop.function == lifetime.function and (
            lifetime.enter <= start < lifetime.exit or start <= lifetime.enter < end
        )
        if inside or loop.function in lifetime.kernels:
            names = ", ".join(f"`{n}`" for n in lifetime.names)
            moved = lifetime.moved
            return (
                f"device data: {names} kept in `{lifetime.function}()` (code action): "
                f"{moved.before} moved before, {moved.after} after"
            )
    for s in suggestions_for(analysed, opts, True):
        region = s.region
        if region is None or not any(
            held.id == loop.id for held in (*region.loops, region.around) if held
        ):
            continue
        moved = region_bytes(analysed.analysis(opts.dialect), region)
        first, last = region.loops[0].line, region.loops[-1].line
        return (
            f"data region: lines {first}-{last} (code action): "
            f"{moved.before} moved before, {moved.after} after"
        )
    return ""


def _chosen(
    analysed: BufferAnalysis, opts: SuggestOptions, lifetime: DeviceLifetime
) -> tuple[Suggestion, ...]:
    """The pragmas the lifetime relies on: the owner's and its kernels' loops."""
    source = analysed.source
    functions = {lifetime.function, *lifetime.kernels}
    while True:  # kernels that call kernels
        more = {
            c
            for name in functions
            if (fn := source.function(name)) is not None
            for c in fn.calls
            if source.function(c) is not None
        }
        if more <= functions:
            break
        functions |= more
    inserted = _inserted(analysed, opts)
    out: list[Suggestion] = []
    for s in inserted:
        if s.loop.function in functions and s.pragma is not None and not s.inner:
            out.extend(with_inner(s, inserted))
    return tuple(out)


def _named_elsewhere(doc: Document, offset: int, names: set[str]) -> frozenset[str]:
    """The names that the code outside the slice at `offset` mentions."""
    piece = doc.function_slice(offset)
    data = doc.data
    if piece is None:
        return frozenset(names)
    outside = bytearray(data)
    for kept in piece.kept:
        outside[kept.start : kept.end] = b" " * (kept.end - kept.start)
    code = _COMMENT.sub(b" ", bytes(outside))
    return frozenset(
        n for n in names if re.search(rb"\b" + re.escape(n.encode()) + rb"\b", code)
    )


def _edits(
    doc: Document, text: str, chosen: tuple[Suggestion, ...], lifetime: DeviceLifetime
) -> list[types.TextEdit]:
    return insertion_edits(doc, insertions(text, chosen, (), [lifetime]))


async def _resolve(r: Resolving) -> types.CodeAction:
    ls, doc, key, analysed, action = r.ls, r.doc, r.key, r.analysed, r.action
    opts = key.options
    lifetime = (
        next(
            (lt for lt in _lifetimes(doc, analysed, opts) if lt.enter == key.loop),
            None,
        )
        if analysed is not None
        else None
    )
    if analysed is None or lifetime is None:
        action.disabled = types.CodeActionDisabled(reason="the function changed")
        return action
    analysis = analysed.analysis(opts.dialect)
    chosen = _chosen(analysed, opts, lifetime)
    names = {s.loop.function for s in chosen if s.loop.function is not None}
    elsewhere = _named_elsewhere(doc, lifetime.enter, names)
    text, path = analysed.source.text, doc.path
    why = doc.peek(_CHECKED, lifetime)
    if why is None:
        include = ls.include_dirs(doc)
        compiler = compiler_settings(ls.settings, include)
        async with progress.report(ls, "accls: checking the lifetime", "compile check"):
            why = await ls.in_pool(
                doc,
                lambda: lifetime_problem(
                    text,
                    path,
                    analysis,
                    chosen,
                    [lifetime],
                    compiler,
                    include,
                    elsewhere,
                ),
            )
        doc.store(_CHECKED, lifetime, why)
    if why:
        action.disabled = types.CodeActionDisabled(reason=f"not offered: {why}")
        return action
    present = with_present(analysis, chosen, [lifetime], elsewhere)
    action.edit = types.WorkspaceEdit(
        changes={doc.uri: _edits(doc, text, present, lifetime)}
    )
    action.data = {**key.data(), "reasons": list(lifetime.reasons)}
    return action


LIFETIME = Offer(ActionKind.LIFETIME, _listing, _resolve)
