"""Positions in UTF-16 (VS Code) and UTF-8 (Neovim) on a buffer with non-ASCII text."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient
from support.lsp import actions_at

At = Callable[..., types.Position]
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]
Encoding = Callable[[LanguageClient], str]
Need = Callable[[str], str]

SOURCE = """\
#include <stdio.h>
/* Ünïcödé: π ≈ 3.14159, 😀 and 🎉 are outside the BMP */
static const char *label = "naïve — café 😀";

void scale(int n, double *restrict a, double f)
{
    /* ∀i: a[i] ← f·a[i] 😀 */ for (int i = 0; i < n; i++) a[i] = f * a[i];
}

int main(void)
{
    double v[4] = {1, 2, 3, 4};
    scale(4, v, 2.0);
    printf("%s %g\\n", label, v[3]);
    return 0;
}
"""


async def test_non_ascii_buffer(
    any_client: LanguageClient,
    at: At,
    apply_edits: ApplyEdits,
    encoding: Encoding,
    need: Need,
    tmp_path: Path,
) -> None:
    code = encoding(any_client)
    assert code in ("utf-8", "utf-16")
    path = tmp_path / "unicode.c"
    path.write_text(SOURCE, encoding="utf-8")
    uri = path.as_uri()
    any_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=1, text=SOURCE
            )
        )
    )
    keyword = at(SOURCE, "for (int i", code)
    hover = await any_client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=keyword
        )
    )
    assert hover is not None
    assert hover.range is not None
    assert hover.range.start == keyword
    assert hover.range.end == at(SOURCE, " a[i] = f * a[i];", code)
    actions = await actions_at(any_client, uri, keyword)
    assert actions
    action = actions[0]
    assert isinstance(action, types.CodeAction)
    resolved = await any_client.code_action_resolve_async(action)
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    new = apply_edits(SOURCE, list(resolved.edit.changes[uri]), code)
    pragma = action.title.split("`")[1]
    comment = "    /* ∀i: a[i] ← f·a[i] 😀 */ \n"
    assert f"{comment}    {pragma}\n    for (int i = 0; i < n; i++)" in new
    gcc = need("gcc")
    path.write_text(new, encoding="utf-8")
    result = subprocess.run(
        [gcc, "-fsyntax-only", "-fopenacc", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
