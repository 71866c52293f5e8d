"""Quick fixes for diagnostics: repair the pragma a finding is about.

The pragma is parsed, compared with what the analysis would write for its loop
(`reference_suggestion`) and repaired (`accls.suggest.repair`): a missing
reduction is added, `copyin` of an array the loop writes becomes `copy`, and so on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from lsprotocol import types

from accls.frontend import Directive, Loop
from accls.server.documents import Document
from accls.server.language_server import AcclsServer
from accls.server.suggestions import BufferAnalysis
from accls.suggest import (
    Dialect,
    SuggestOptions,
    Target,
    parse_pragma,
    reference_suggestion,
)
from accls.suggest.repair import repair

__all__ = ["quick_fixes"]

log = logging.getLogger(__name__)


def _offset(doc: Document, diagnostic: types.Diagnostic) -> int:
    data = diagnostic.data
    if isinstance(data, dict) and isinstance(data.get("start"), int):
        return int(data["start"])
    return doc.index.offset(diagnostic.range.start)


def _pragma_loop(analysed: BufferAnalysis, offset: int) -> Loop | None:
    """The innermost annotated loop whose pragma or statement holds `offset`."""
    found: Loop | None = None
    for loop in analysed.source.loops():
        spans = [p.span for p in loop.pragmas if p.span is not None]
        if not spans:
            continue
        start = min(s.start_byte for s in spans)
        if start <= offset < loop.span.end_byte and (
            found is None or start >= found.span.start_byte
        ):
            found = loop
    return found


def _options(directive: Directive) -> SuggestOptions:
    if directive.dialect == "acc":
        return SuggestOptions(Dialect.OPENACC, Target.GPU)
    words = directive.name.split()
    return SuggestOptions(
        Dialect.OPENMP, Target.GPU if "target" in words else Target.CPU
    )


def _fix(
    doc: Document, analysed: BufferAnalysis, loop: Loop, diagnostic: types.Diagnostic
) -> types.CodeAction | None:
    for directive in loop.pragmas:
        pragma = parse_pragma(directive.text)
        if pragma is None or directive.span is None:
            continue
        options = _options(directive)
        reference = reference_suggestion(
            analysed.analysis(options.dialect), loop, options
        )
        fixed = repair(pragma, reference)
        if not fixed.changes:
            continue
        start = directive.span.start_byte
        line = doc.data[start : directive.span.end_byte]
        end = start + len(line.rstrip(b"\r\n"))
        edit = types.TextEdit(
            range=doc.index.offsets_range(start, end), new_text=fixed.pragma.render()
        )
        return types.CodeAction(
            title="Fix: " + "; ".join(fixed.edits),
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            is_preferred=True,
            edit=types.WorkspaceEdit(changes={doc.uri: [edit]}),
        )
    return None


def _insertion(doc: Document, diagnostic: types.Diagnostic) -> types.CodeAction | None:
    """The finding's own repair (a `barrier`, a `taskwait`) when it carries one."""
    data = diagnostic.data
    insert = data.get("insert") if isinstance(data, dict) else None
    if not (isinstance(insert, list) and len(insert) == 2):
        return None
    at, text = insert
    if not isinstance(at, int) or not isinstance(text, str) or at > len(doc.data):
        return None
    where = doc.index.offsets_range(at, at)
    return types.CodeAction(
        title=f"Fix: insert `{text.strip()}` at line {where.start.line + 1}",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=True,
        edit=types.WorkspaceEdit(
            changes={doc.uri: [types.TextEdit(range=where, new_text=text)]}
        ),
    )


async def quick_fixes(
    ls: AcclsServer, doc: Document, diagnostics: Sequence[types.Diagnostic]
) -> list[types.CodeAction]:
    """One fix per accls diagnostic whose pragma the analysis can repair."""
    out: list[types.CodeAction] = []
    seen: set[str] = set()
    for diagnostic in diagnostics:
        if diagnostic.source != "accls":
            continue
        inserted = _insertion(doc, diagnostic)
        if inserted is not None:
            if inserted.title not in seen:
                seen.add(inserted.title)
                out.append(inserted)
            continue
        offset = _offset(doc, diagnostic)
        analysed = await ls.analysed(doc, offset)
        loop = _pragma_loop(analysed, offset) if analysed is not None else None
        if analysed is None or loop is None:
            continue
        try:
            action = _fix(doc, analysed, loop, diagnostic)
        except Exception:  # a repair bug must cost the fix, not the listing
            log.exception("repair failed for %s at %d", doc.uri, offset)
            continue
        if action is not None and action.title not in seen:
            seen.add(action.title)
            out.append(action)
    return out
