"""Settings: initializationOptions, workspace/configuration, didChangeConfiguration."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from support.lsp import actions_at

OpenFixture = Callable[[LanguageClient, str], tuple[str, str]]
At = Callable[..., types.Position]
Start = Callable[..., Awaitable[types.InitializeResult]]


def preferred(actions: list[types.CodeAction]) -> list[str]:
    return [a.title.split(":")[0] for a in actions if a.is_preferred]


async def wait_for_message(
    client: LanguageClient, timeout: float = 10.0
) -> types.ShowMessageParams:
    async with asyncio.timeout(timeout):
        while not client.messages:
            await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    return client.messages[0]


async def test_invalid_initialization_options_warn_and_use_defaults(
    raw_client: LanguageClient, initialize: Start, open_fixture: OpenFixture, at: At
) -> None:
    await initialize(
        raw_client,
        "visual-studio-code",
        {"model": "cuda", "compiler": {"flags": 3}, "backend": {"kind": "vllm"}},
    )
    message = await wait_for_message(raw_client)
    assert message.type == types.MessageType.Warning
    assert "accls.model" in message.message
    assert "accls.compiler.flags" in message.message
    uri, text = open_fixture(raw_client, "dot_product.c")
    actions = await actions_at(raw_client, uri, at(text, "s += x[i]"))
    assert preferred(actions) == ["Parallelize with OpenACC"]


async def test_initialization_options_choose_the_preferred_model(
    raw_client: LanguageClient, initialize: Start, open_fixture: OpenFixture, at: At
) -> None:
    await initialize(raw_client, "neovim", {"model": "openmp", "target": "gpu"})
    uri, text = open_fixture(raw_client, "dot_product.c")
    actions = await actions_at(raw_client, uri, at(text, "s += x[i]", "utf-8"))
    assert preferred(actions) == ["Offload with OpenMP target"]
    assert raw_client.messages == []


async def test_configuration_change_is_pulled(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    position = at(text, "s += x[i]")
    assert preferred(await actions_at(client, uri, position)) == [
        "Parallelize with OpenACC"
    ]
    client.set_configuration({"model": "openmp", "target": "cpu"}, section="accls")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    async with asyncio.timeout(10):
        while preferred(await actions_at(client, uri, position)) != [
            "Parallelize with OpenMP (CPU)"
        ]:
            await asyncio.sleep(0.05)
    client.set_configuration({"model": "fortran"}, section="accls")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    message = await wait_for_message(client)
    assert "accls.model" in message.message


async def test_kernels_setting_reaches_listing_and_resolve(
    raw_client: LanguageClient, initialize: Start, open_fixture: OpenFixture, at: At
) -> None:
    await initialize(raw_client, "visual-studio-code", {"kernels": True})
    uri, text = open_fixture(raw_client, "dot_product.c")
    actions = await actions_at(raw_client, uri, at(text, "s += x[i]"))
    assert actions[0].title.startswith(
        "Parallelize with OpenACC: `#pragma acc kernels loop"
    )
    resolved = await raw_client.code_action_resolve_async(actions[0])
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    (edit,) = resolved.edit.changes[uri]
    assert edit.new_text.strip().startswith("#pragma acc kernels loop")


async def test_pulling_clients_are_asked_to_pull_again(
    raw_client: LanguageClient,
) -> None:
    capabilities = client_capabilities("neovim")
    assert capabilities.workspace is not None
    capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(
        refresh_support=True
    )
    await raw_client.initialize_session(
        types.InitializeParams(capabilities=capabilities)
    )
    raw_client.set_configuration({"assumeNoAlias": True}, section="accls")
    raw_client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    async with asyncio.timeout(10):
        while raw_client.diagnostic_refresh_count == 0:
            await asyncio.sleep(0.02)
