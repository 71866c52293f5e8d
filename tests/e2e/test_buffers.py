"""Awkward buffers: syntax errors and a 1 MB file."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient
from support.lsp import actions_at

At = Callable[..., types.Position]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "c"

BROKEN = """\
void broken(int n, double *a)
{
    for (int i = 0; i < n; i++) {
        a[i] = a[i] * 2.0 +;
    }
    int x = ;
}

void fine(int n, double *restrict b)
{
    for (int j = 0; j < n; j++)
        b[j] = 1.0;
}

int unfinished(int n) { for (int k = 0; k < n; k++ { return n +
"""


def open_buffer(client: LanguageClient, text: str, path: Path) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=1, text=text
            )
        )
    )
    return uri


async def titles(
    client: LanguageClient, uri: str, position: types.Position
) -> list[str]:
    return [a.title for a in await actions_at(client, uri, position)]


async def test_syntax_errors(client: LanguageClient, at: At, tmp_path: Path) -> None:
    uri = open_buffer(client, BROKEN, tmp_path / "broken.c")
    for needle in ("for (int i", "+;", "x = ;", "for (int j", "for (int k", "n +\n"):
        await titles(client, uri, at(BROKEN, needle))  # answers, whatever it is
        await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=at(BROKEN, needle),
            )
        )
    # The server is still there and sees the intact loop.
    assert any(
        "OpenMP (CPU)" in t for t in await titles(client, uri, at(BROKEN, "b[j]"))
    )


def _renamed(match: re.Match[str], suffix: str) -> str:
    return match.group(0).replace(match.group(3), match.group(3) + suffix)


def big_file(size: int) -> str:
    """Fixture kernels repeated with renamed functions until `size` bytes."""
    kernels = [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob("*.c"))]
    parts: list[str] = []
    total = 0
    copy = 0
    while total < size:
        for text in kernels:
            body = re.sub(r"\bmain\b", f"main_{copy}", text)
            body = re.sub(
                r"^(static\s+)?(\w[\w\s\*]*?)\b(\w+)\s*\(",
                partial(_renamed, suffix=f"_{copy}"),
                body,
                flags=re.M,
            )
            parts.append(body)
            total += len(body) + 1
        copy += 1
    return "\n".join(parts)


async def test_one_megabyte_buffer(
    client: LanguageClient, at: At, tmp_path: Path
) -> None:
    text = big_file(1 << 20)
    assert len(text.encode("utf-8")) >= 1 << 20
    uri = open_buffer(client, text, tmp_path / "big.c")
    needle = "s += x[i] * y[i]"
    last = text.count(needle) - 1
    started = time.monotonic()
    found = await titles(client, uri, at(text, needle, nth=last))
    elapsed = time.monotonic() - started
    assert any("reduction(+:s)" in t for t in found)
    assert elapsed < 20, f"listing on a 1 MB buffer took {elapsed:.1f} s"
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=at(text, "for (int i = 0; i < n; i++)\n        s +=", nth=last),
        )
    )
    assert hover is not None
