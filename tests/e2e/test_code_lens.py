"""Code lenses on loop headers: a short verdict; a click applies or explains."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from lsprotocol import types
from pytest_lsp import LanguageClient

OpenFixture = Callable[[LanguageClient, str], tuple[str, str]]
At = Callable[..., types.Position]
Start = Callable[..., Awaitable[types.InitializeResult]]
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]


async def lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return list(found or [])


def titles(found: list[types.CodeLens]) -> dict[int, str]:
    return {
        lens.range.start.line + 1: lens.command.title
        for lens in found
        if lens.command is not None
    }


async def test_lenses_say_the_verdict_in_a_few_words(
    client: LanguageClient, open_fixture: OpenFixture
) -> None:
    uri, _ = open_fixture(client, "prefix_sum.c")
    found = titles(await lenses(client, uri))
    assert found[19] == "serial: `out` carried (line 20)"
    assert found[27] == "parallel · OpenACC ready"
    uri, _ = open_fixture(client, "saxpy_alias.c")
    found_lenses = await lenses(client, uri)
    found = titles(found_lenses)
    assert found[18] == "serial: `y` may alias `x` (add restrict)"
    (alias,) = [lens for lens in found_lenses if lens.range.start.line == 17]
    assert alias.command is not None
    assert alias.command.command == "accls.applyLoopAction"
    assert alias.command.arguments is not None
    (argument,) = alias.command.arguments
    assert isinstance(argument, dict)
    assert argument["kind"] == "restrict"


async def test_clicking_a_parallel_lens_applies_the_pragma(
    client: LanguageClient,
    open_fixture: OpenFixture,
    apply_edits: ApplyEdits,
) -> None:
    edits: list[types.WorkspaceEdit] = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)  # type: ignore[untyped-decorator]
    def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        edits.append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    uri, text = open_fixture(client, "dot_product.c")
    lens = next(
        lens for lens in await lenses(client, uri) if lens.range.start.line == 18
    )
    assert lens.command is not None
    assert lens.command.command == "accls.applyLoopAction"
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command=lens.command.command, arguments=lens.command.arguments
        )
    )
    assert isinstance(answer, dict)
    assert answer["applied"] is True
    (edit,) = edits
    assert edit.changes is not None
    new = apply_edits(text, list(edit.changes[uri]), "utf-16")
    assert "#pragma acc parallel loop reduction(+:s)" in new


async def test_a_refusal_without_a_fix_opens_the_explanation(
    client: LanguageClient, open_fixture: OpenFixture
) -> None:
    uri, _ = open_fixture(client, "prefix_sum.c")
    lens = next(
        lens for lens in await lenses(client, uri) if lens.range.start.line == 18
    )
    assert lens.command is not None
    assert lens.command.command == "accls.explainLoop"
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command=lens.command.command, arguments=lens.command.arguments
        )
    )
    assert isinstance(answer, dict)
    assert answer["loop"]["line"] == 18


async def test_lenses_come_from_the_cache_and_stay_cheap(
    client: LanguageClient, open_fixture: OpenFixture
) -> None:
    uri, _ = open_fixture(client, "gemm.c")
    first = await lenses(client, uri)
    loop = asyncio.get_running_loop()
    start = loop.time()
    again = await lenses(client, uri)
    assert loop.time() - start < 1.0
    assert titles(again) == titles(first)


async def test_lenses_off_via_the_setting(
    raw_client: LanguageClient, initialize: Start, open_fixture: OpenFixture
) -> None:
    await initialize(raw_client, "visual-studio-code", {"codeLens": False})
    uri, _ = open_fixture(raw_client, "dot_product.c")
    assert await lenses(raw_client, uri) == []


async def test_a_settings_change_asks_the_client_for_fresh_lenses(
    client: LanguageClient, open_fixture: OpenFixture
) -> None:
    uri, _ = open_fixture(client, "dot_product.c")
    assert "parallel · OpenACC ready" in titles(await lenses(client, uri)).values()
    before = client.code_lens_refreshes  # type: ignore[attr-defined]
    client.set_configuration({"model": "openmp"}, section="accls")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    for _ in range(100):
        if client.code_lens_refreshes > before:  # type: ignore[attr-defined]
            break
        await asyncio.sleep(0.05)
    assert client.code_lens_refreshes > before  # type: ignore[attr-defined]
    assert "parallel · OpenMP ready" in titles(await lenses(client, uri)).values()
