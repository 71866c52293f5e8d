"""Hover on a loop's header: verdict, dependences, scalars, pragmas, data movement."""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import unquote

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from support.lsp import actions_at, hover_text

OpenFixture = Callable[[LanguageClient, str], tuple[str, str]]
At = Callable[..., types.Position]
Encoding = Callable[[LanguageClient], str]


async def test_hover_on_a_parallel_loop(
    any_client: LanguageClient, open_fixture: OpenFixture, at: At, encoding: Encoding
) -> None:
    uri, text = open_fixture(any_client, "dot_product.c")
    value = await hover_text(any_client, uri, at(text, "i < n", encoding(any_client)))
    assert value is not None
    print(value)
    assert "is parallel" in value
    assert "OpenACC (GPU): `#pragma acc parallel loop reduction(+:s)" in value
    assert "OpenMP (CPU): `#pragma omp parallel for reduction(+:s)" in value
    assert value.count("not checked yet") == 1
    assert len(value.rstrip("\n").splitlines()) <= 12
    # The rest is one command away: a link where the client follows them.
    last = value.rstrip("\n").splitlines()[-1]
    assert "command:accls.explainLoop?" in last or ":AcclsExplainLoop" in last


async def test_vs_code_gets_a_link_to_the_full_report(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    value = await hover_text(client, uri, at(text, "for (int i = 0; i < n"))
    assert value is not None
    last = value.rstrip("\n").splitlines()[-1]
    assert last.startswith("[Explain this loop](command:accls.explainLoop?")
    args = json.loads(unquote(last.split("?", 1)[1].split(")", 1)[0]))
    assert args[0]["uri"] == uri
    assert args[0]["position"] == {"line": 18, "character": 4}


async def test_hover_on_a_refused_loop_says_why(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "prefix_sum.c")
    value = await hover_text(client, uri, at(text, "for (int i = 1"))
    assert value is not None
    print(value)
    assert "is not parallel" in value
    assert "- why: line 20: flow dependence on `out`" in value
    assert "(?" not in value
    assert value.count("flow dependence on `out`") == 1  # one reason, said once


async def test_hover_outside_a_loop_header_is_empty(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    assert await hover_text(client, uri, at(text, "s += x[i]")) is None
    assert await hover_text(client, uri, at(text, "#include")) is None


async def test_hover_shows_the_validation_after_resolve(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "dot_product.c")
    position = at(text, "for (int i = 0; i < n")
    actions = await actions_at(client, uri, position)
    assert actions
    first = actions[0]
    assert isinstance(first, types.CodeAction)
    await client.code_action_resolve_async(first)
    value = await hover_text(client, uri, position)
    assert value is not None
    assert "compile: ok" in value or "compile: unverified" in value


async def test_a_plain_text_client_gets_the_hover_without_markdown(
    raw_client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    capabilities = client_capabilities("neovim")
    assert capabilities.text_document is not None
    capabilities.text_document.hover = types.HoverClientCapabilities(
        content_format=[types.MarkupKind.PlainText]
    )
    await raw_client.initialize_session(
        types.InitializeParams(capabilities=capabilities, initialization_options={})
    )
    uri, text = open_fixture(raw_client, "dot_product.c")
    result = await raw_client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at(text, "for (int i = 0; i < n"),
        )
    )
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    value = result.contents.value
    print(value)
    assert result.contents.kind == types.MarkupKind.PlainText
    assert "`" not in value
    assert "**" not in value
    assert "is parallel" in value
    assert "#pragma omp parallel for reduction(+:s)" in value
