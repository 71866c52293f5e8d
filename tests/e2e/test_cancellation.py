"""Long operations: progress, $/cancelRequest, and abandoning on a document change."""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from support.lsp import actions_at

OpenFixture = Callable[[LanguageClient, str], tuple[str, str]]
At = Callable[..., types.Position]
Start = Callable[..., Awaitable[types.InitializeResult]]
Need = Callable[[str], str]

CONTENT_MODIFIED = -32801
REQUEST_CANCELLED = -32800


async def compile_started(client: LanguageClient) -> None:
    """Wait for the progress bar of a compile check to begin."""
    async with asyncio.timeout(10):
        while not any(client.progress_reports.values()):
            await asyncio.sleep(0.02)


def slow_compiler(tmp_path: Path, gcc: str, seconds: float) -> str:
    """A compiler that takes `seconds` before it runs gcc."""
    script = tmp_path / "slowcc"
    script.write_text(
        f'#!/bin/sh\nsleep {seconds}\nexec "{gcc}" "$@"\n', encoding="utf-8"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


async def first_action(
    client: LanguageClient, uri: str, position: types.Position
) -> types.CodeAction:
    result = await actions_at(client, uri, position)
    assert result
    return result[0]


async def test_resolve_reports_progress(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    action = await first_action(client, uri, at(text, "s += x[i]"))
    await client.code_action_resolve_async(action)
    (reports,) = client.progress_reports.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)


async def test_cancel_request(
    raw_client: LanguageClient,
    initialize: Start,
    open_fixture: OpenFixture,
    at: At,
    need: Need,
    tmp_path: Path,
) -> None:
    cc = slow_compiler(tmp_path, need("gcc"), 1)
    await initialize(raw_client, "visual-studio-code", {"compiler": {"path": cc}})
    uri, text = open_fixture(raw_client, "dot_product.c")
    action = await first_action(raw_client, uri, at(text, "s += x[i]"))
    pending = asyncio.ensure_future(
        raw_client.protocol.send_request_async(  # type: ignore[no-untyped-call]
            types.CODE_ACTION_RESOLVE, action, msg_id="slow-resolve"
        )
    )
    await compile_started(raw_client)
    raw_client.protocol.notify(
        types.CANCEL_REQUEST, types.CancelParams(id="slow-resolve")
    )
    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(pending, 10)
    assert caught.value.code == REQUEST_CANCELLED
    hover = await raw_client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at(text, "for (int i = 0; i < n"),
        )
    )
    assert hover is not None  # still alive and answering


async def test_document_change_abandons_resolve(
    raw_client: LanguageClient,
    initialize: Start,
    open_fixture: OpenFixture,
    at: At,
    need: Need,
    tmp_path: Path,
) -> None:
    cc = slow_compiler(tmp_path, need("gcc"), 1)
    await initialize(raw_client, "visual-studio-code", {"compiler": {"path": cc}})
    uri, text = open_fixture(raw_client, "dot_product.c")
    action = await first_action(raw_client, uri, at(text, "s += x[i]"))
    pending = asyncio.ensure_future(raw_client.code_action_resolve_async(action))
    await compile_started(raw_client)
    raw_client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=0, character=0),
                        end=types.Position(line=0, character=0),
                    ),
                    text="// edited\n",
                )
            ],
        )
    )
    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(pending, 10)
    assert caught.value.code == CONTENT_MODIFIED
    # A stale action (listed at version 1) is refused as well.
    with pytest.raises(JsonRpcException) as again:
        await raw_client.code_action_resolve_async(action)
    assert again.value.code == CONTENT_MODIFIED


async def test_a_busy_document_does_not_delay_another(
    raw_client: LanguageClient,
    initialize: Start,
    open_fixture: OpenFixture,
    at: At,
    need: Need,
    tmp_path: Path,
) -> None:
    # Two resolves on document A each hold a compile until its 10 s timeout. They
    # used to take both workers, so listing on document B waited about 10 s; now
    # A's requests queue behind each other and B's run beside them (~0.1 s).
    cc = slow_compiler(tmp_path, need("gcc"), 20)
    await initialize(raw_client, "visual-studio-code", {"compiler": {"path": cc}})
    uri_a, text_a = open_fixture(raw_client, "dot_product.c")
    uri_b, text_b = open_fixture(raw_client, "saxpy_restrict.c")
    actions = await actions_at(raw_client, uri_a, at(text_a, "s += x[i]"))
    assert len(actions) >= 2  # OpenACC and OpenMP: two different compiles
    busy = [
        asyncio.ensure_future(raw_client.code_action_resolve_async(action))
        for action in actions[:2]
    ]
    await compile_started(raw_client)
    await asyncio.sleep(0.5)  # let the second resolve reach the server
    listed = await asyncio.wait_for(
        actions_at(raw_client, uri_b, at(text_b, "for (")), timeout=5
    )
    assert listed, "document B got no code action"
    for task in busy:
        task.cancel()
