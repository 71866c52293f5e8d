"""The offer that opens one OpenMP parallel region around a sequential loop.

Inside a time or pivot loop, "Parallelize with OpenMP (CPU)" on each inner loop opens a
region per iteration. This offer, listed on the sequential loop, writes
`#pragma omp parallel` on it and `omp for` / `single` / `barrier` inside
(`suggest/hoist.py` says when that is the same program). Resolve checks the whole edit:
the file with it must compile and show no race or data error the per-loop pragmas do
not have.
"""

from __future__ import annotations

from lsprotocol import types

from accls.pipeline import compiler_settings, estimates_for, hoist_problem
from accls.server import progress
from accls.server.documents import Document, Slot
from accls.server.offers.cache import suggestions_for, withdrawn
from accls.server.offers.key import ActionKind
from accls.server.offers.rewrites import insertion_edits
from accls.server.offers.table import KIND, Listing, Offer, Resolving
from accls.server.suggestions import BufferAnalysis, offers
from accls.suggest import Dialect, SuggestOptions, Target
from accls.suggest.annotate import insertions
from accls.suggest.hoist import HoistedRegion, hoist_regions

__all__ = ["HOIST"]

_CPU = SuggestOptions(Dialect.OPENMP, Target.CPU)

_CHECKED: Slot[int, str] = Slot("hoist-checked")
"""Per sequential loop: why hoisting it was refused, or "" when it checks out."""


_REGIONS: Slot[tuple[int, ...], tuple[HoistedRegion, ...]] = Slot("hoist-regions")
"""The regions a function's analysis can hoist, keyed by its loop nests."""


def _regions(doc: Document, analysed: BufferAnalysis) -> tuple[HoistedRegion, ...]:
    key = tuple(nest.id for nest in analysed.source.nests)
    cached = doc.peek(_REGIONS, key)
    if cached is None:
        analysis = analysed.analysis(Dialect.OPENMP)
        listed = suggestions_for(analysed, _CPU, False)
        cached = hoist_regions(analysis, listed, estimates_for(analysis, listed))
        doc.store(_REGIONS, key, cached)
    return cached


def _region_at(
    doc: Document, analysed: BufferAnalysis, loop: int
) -> HoistedRegion | None:
    return next((r for r in _regions(doc, analysed) if r.outer.id == loop), None)


def _listing(at: Listing) -> list[types.CodeAction]:
    if not any(
        (o.dialect, o.target) == (Dialect.OPENMP, Target.CPU)
        for o in offers(at.ls.settings)
    ):
        return []
    inside = [
        r
        for r in _regions(at.doc, at.analysed)
        if r.outer.span.start_byte <= at.offset < r.outer.span.end_byte
    ]
    if not inside:
        return []
    region = inside[-1]
    key = at.key(ActionKind.HOIST, _CPU, region.outer.id)
    if withdrawn(at.doc, key):
        return []
    var = f" `{region.outer.var}`" if region.outer.var else ""
    count = len(region.loops)
    return [
        types.CodeAction(
            title=f"Open one OpenMP parallel region around the{var} loop "
            f"({count} `omp for` inside, not {count} regions per iteration)",
            kind=KIND,
            data=key.data(),
        )
    ]


def _edits(doc: Document, text: str, region: HoistedRegion) -> list[types.TextEdit]:
    return insertion_edits(doc, insertions(text, region.loops, [region]))


async def _resolve(r: Resolving) -> types.CodeAction:
    ls, doc, key, analysed, action = r.ls, r.doc, r.key, r.analysed, r.action
    region = _region_at(doc, analysed, key.loop) if analysed is not None else None
    if analysed is None or region is None:
        action.disabled = types.CodeActionDisabled(reason="the loop changed")
        return action
    why = doc.peek(_CHECKED, key.loop)
    if why is None:
        text, path = analysed.source.text, doc.path
        include = ls.include_dirs(doc)
        compiler = compiler_settings(ls.settings, include)
        async with progress.report(ls, "accls: checking the region", "compile check"):
            why = await ls.in_pool(
                doc,
                lambda: hoist_problem(
                    text, path, region.loops, [region], compiler, include
                ),
            )
        doc.store(_CHECKED, key.loop, why)
    if why:
        action.disabled = types.CodeActionDisabled(reason=f"not offered: {why}")
        return action
    action.edit = types.WorkspaceEdit(
        changes={doc.uri: _edits(doc, analysed.source.text, region)}
    )
    action.data = {**key.data(), "reasons": list(region.reasons)}
    return action


HOIST = Offer(ActionKind.HOIST, _listing, _resolve)
