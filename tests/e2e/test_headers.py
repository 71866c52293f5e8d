"""The server sees the project's headers as the build does, and says when it cannot."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient
from support.lsp import actions_at

Need = Callable[[str], str]
At = Callable[..., types.Position]
Start = Callable[..., Awaitable[types.InitializeResult]]
OpenSource = Callable[[LanguageClient, str, Path], str]

HEADER = "#define NX 64\n#define NY 32\nextern double rhs[NX][NY], lhs[NX][NY];\n"
KERNEL = """\
#include "proj_fields.h"
void scale(void) {
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      lhs[i][j] = 2.0 * rhs[i][j];
}
"""


async def _hover(client: LanguageClient, uri: str, position: types.Position) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_globals_of_an_included_header_make_the_loop_parallel(
    raw_client: LanguageClient,
    initialize: Start,
    open_source: OpenSource,
    at: At,
    need: Need,
    tmp_path: Path,
) -> None:
    need("gcc")
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "proj_fields.h").write_text(HEADER, encoding="utf-8")
    options: dict[str, Any] = {"includePaths": [str(tmp_path / "inc")]}
    await initialize(raw_client, "visual-studio-code", options)
    uri = open_source(raw_client, KERNEL, tmp_path / "kernel.c")
    actions = await actions_at(raw_client, uri, at(KERNEL, "for (int i"))
    # NX = 64 rows from the header feed the threads alone: no collapse.
    assert any("#pragma omp parallel for" in a.title for a in actions)


async def test_the_hover_names_a_header_that_was_not_found(
    raw_client: LanguageClient,
    initialize: Start,
    open_source: OpenSource,
    at: At,
    need: Need,
    tmp_path: Path,
) -> None:
    need("gcc")
    await initialize(raw_client, "visual-studio-code", {"model": "openmp"})
    uri = open_source(raw_client, KERNEL, tmp_path / "kernel.c")
    assert await actions_at(raw_client, uri, at(KERNEL, "for (int i")) == []
    text = await _hover(raw_client, uri, at(KERNEL, "for (int i"))
    assert "`proj_fields.h` not found" in text
