"""Hover on a loop's header: verdict, dependences, scalars, pragmas, data movement."""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types
from pytest_lsp import LanguageClient
from support.lsp import actions_at

OpenFixture = Callable[[LanguageClient, str], tuple[str, str]]
At = Callable[..., types.Position]
Encoding = Callable[[LanguageClient], str]


async def hover_text(
    client: LanguageClient, uri: str, position: types.Position
) -> str | None:
    result = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position
        )
    )
    if result is None:
        return None
    assert isinstance(result.contents, types.MarkupContent)
    return result.contents.value


async def test_hover_on_a_parallel_loop(
    any_client: LanguageClient, open_fixture: OpenFixture, at: At, encoding: Encoding
) -> None:
    uri, text = open_fixture(any_client, "dot_product.c")
    value = await hover_text(any_client, uri, at(text, "i < n", encoding(any_client)))
    assert value is not None
    print(value)
    assert "is parallel" in value
    assert "`s`: reduction(+)" in value
    assert "OpenACC (GPU): `#pragma acc parallel loop" in value
    assert "OpenMP (CPU): `#pragma omp parallel for" in value
    assert "not checked yet" in value
    assert "`x[0:n]` to device: n x double" in value


async def test_hover_on_a_refused_loop_says_why(
    client: LanguageClient, open_fixture: OpenFixture, at: At
) -> None:
    uri, text = open_fixture(client, "prefix_sum.c")
    value = await hover_text(client, uri, at(text, "for (int i = 1"))
    assert value is not None
    print(value)
    assert "is not parallel" in value
    assert "Why not:" in value
    assert "flow dependence from line 20 to line 20" in value


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
