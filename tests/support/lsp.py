"""Requests the end-to-end tests send through a pytest-lsp client."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

__all__ = ["actions_at", "hover_text"]


async def actions_at(
    client: LanguageClient, uri: str, position: types.Position
) -> list[types.CodeAction]:
    """The code actions listed for a cursor at `position` (no diagnostics)."""
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=position, end=position),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def hover_text(
    client: LanguageClient, uri: str, position: types.Position
) -> str | None:
    """The hover's markdown at `position`, None when there is none."""
    result = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position
        )
    )
    if result is None:
        return None
    assert isinstance(result.contents, types.MarkupContent)
    return result.contents.value
