"""Diagnostics: check-catalog findings, pushed (VS Code) or pulled (Neovim)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

RACES = Path(__file__).resolve().parents[1] / "fixtures" / "races"


def open_race(client: LanguageClient, name: str) -> tuple[str, str]:
    path = RACES / name
    text = path.read_text(encoding="utf-8")
    uri = path.resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=1, text=text
            )
        )
    )
    return uri, text


async def pushed(
    client: LanguageClient, uri: str, timeout: float = 20.0
) -> list[types.Diagnostic]:
    """Wait for the next push for `uri` (pop what was there before calling)."""
    async with asyncio.timeout(timeout):
        while uri not in client.diagnostics:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


def replacement(
    text: str, old: str, new: str
) -> types.TextDocumentContentChangePartial:
    at = text.index(old)
    line = text.count("\n", 0, at)
    column = at - (text.rfind("\n", 0, at) + 1)
    return types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(line=line, character=column),
            end=types.Position(line=line, character=column + len(old)),
        ),
        text=new,
    )


async def test_push_after_an_edit_that_introduces_a_race(
    client: LanguageClient,
) -> None:
    uri, text = open_race(client, "acc_reduction_ok.c")
    first = await pushed(client, uri)
    assert [d.code for d in first] == []
    client.diagnostics.pop(uri)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                replacement(text, "copyin(a[0:n]) reduction(+:sum)", "copyin(a[0:n])")
            ],
        )
    )
    after = await pushed(client, uri)
    assert [d.code for d in after] == ["ACC104"]
    diagnostic = after[0]
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.source == "accls"
    assert diagnostic.code_description is not None
    href = diagnostic.code_description.href
    assert href.startswith("file://")
    assert href.endswith("/docs/checks/ACC104.md")
    assert Path(href.removeprefix("file://")).is_file()
    assert diagnostic.range.start.line == text.count("\n", 0, text.index("sum += t"))


async def test_pull_diagnostics(nvim: LanguageClient) -> None:
    uri, _ = open_race(nvim, "acc_reduction.c")
    report = await nvim.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri)
        )
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in report.items] == ["ACC104"]
    again = await nvim.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            previous_result_id=report.result_id,
        )
    )
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)


async def test_quick_fix_adds_the_missing_reduction(client: LanguageClient) -> None:
    uri, text = open_race(client, "acc_reduction.c")
    found = await pushed(client, uri)
    assert [d.code for d in found] == ["ACC104"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=found[0].range,
            context=types.CodeActionContext(
                diagnostics=found, only=[types.CodeActionKind.QuickFix]
            ),
        )
    )
    assert actions
    fix = actions[0]
    assert isinstance(fix, types.CodeAction)
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.title == "Fix: add reduction(+:sum)"
    assert fix.edit is not None
    assert fix.edit.changes is not None
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text.startswith("#pragma acc parallel loop")
    assert "reduction(+:sum)" in edit.new_text
    pragma_line = text.count("\n", 0, text.index("#pragma acc"))
    assert edit.range.start.line == edit.range.end.line == pragma_line


async def test_quick_fix_inserts_the_missing_barrier(client: LanguageClient) -> None:
    uri, text = open_race(client, "omp_phase_master.c")
    found = await pushed(client, uri)
    assert [d.code for d in found] == ["ACC120"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=found[0].range,
            context=types.CodeActionContext(
                diagnostics=found, only=[types.CodeActionKind.QuickFix]
            ),
        )
    )
    assert actions
    fix = actions[0]
    assert isinstance(fix, types.CodeAction)
    for_line = text.count("\n", 0, text.index("#pragma omp for"))
    assert fix.title == f"Fix: insert `#pragma omp barrier` at line {for_line + 1}"
    assert fix.edit is not None
    assert fix.edit.changes is not None
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == "    #pragma omp barrier\n"
    assert edit.range.start == edit.range.end
    assert (edit.range.start.line, edit.range.start.character) == (for_line, 0)


async def test_a_file_past_the_size_cap_is_not_checked_and_says_so(
    client: LanguageClient,
) -> None:
    # A race the checks would report (ACC101), after a 1.2 MB comment: the whole
    # file check of a 5 MB buffer took minutes, so big buffers are not checked.
    text = (RACES / "anti_dependence.c").read_text(encoding="utf-8")
    padding = "/* " + "x" * 1_200_000 + " */\n"
    uri = (RACES / "big_anti_dependence.c").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=1, text=padding + text
            )
        )
    )
    assert await pushed(client, uri) == []
    async with asyncio.timeout(20):
        while not client.messages:
            await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    (message,) = client.messages
    assert "big_anti_dependence.c is 1.2 MB" in message.message
    assert "code actions still work" in message.message
