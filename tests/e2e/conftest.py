"""pytest-lsp clients that spawn `python -m accls --stdio`, and editing helpers."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.client import JsonRPCClient
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import make_test_lsp_client

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "c"

Open = Callable[..., str]
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]


def server_env(**extra: str) -> dict[str, str]:
    """The test's environment, with the package on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "server"), env.get("PYTHONPATH", "")) if p
    )
    env.update(extra)
    return env


def _client() -> JsonRPCClient:
    """pytest-lsp's client, answering `workspace/codeLens/refresh` as editors do."""
    client = make_test_lsp_client()
    client.code_lens_refreshes = 0  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)  # type: ignore[untyped-decorator]
    def refresh(params: None) -> None:
        client.code_lens_refreshes += 1  # type: ignore[attr-defined]

    return client


CONFIG = ClientServerConfig(
    server_command=[sys.executable, "-m", "accls", "--stdio", "--log-level", "warning"],
    server_env=server_env(),
    client_factory=_client,
)


_ENCODINGS: dict[int, str] = {}
_CLIENT_NAMES = {"visual-studio-code": "Visual Studio Code", "neovim": "Neovim"}


async def start(
    client: LanguageClient, spec: str, options: dict[str, Any] | None = None
) -> types.InitializeResult:
    """Initialize a session as the editor `spec` would."""
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(spec),
            initialization_options=options if options is not None else {},
            client_info=types.ClientInfo(name=_CLIENT_NAMES.get(spec, spec)),
        )
    )
    chosen = result.capabilities.position_encoding
    _ENCODINGS[id(client)] = str(getattr(chosen, "value", chosen) or "utf-16")
    return result


Start = Callable[..., Awaitable[types.InitializeResult]]


@pytest.fixture
def initialize() -> Start:
    """Return `start(client, spec, options)`, for tests that pick their settings."""
    return start


@pytest_lsp.fixture(config=CONFIG)  # type: ignore[untyped-decorator]
async def raw_client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """A client whose test initializes the session itself (see `initialize`)."""
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest.fixture
def encoding() -> Callable[[LanguageClient], str]:
    """Return `encoding(client)`: the position encoding its server chose."""
    return lambda client: _ENCODINGS.get(id(client), "utf-16")


@pytest_lsp.fixture(config=CONFIG)  # type: ignore[untyped-decorator]
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """A session with VS Code's capabilities (push diagnostics, UTF-16)."""
    await start(lsp_client, "visual-studio-code")
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)  # type: ignore[untyped-decorator]
async def nvim(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """A session with Neovim's capabilities (pull diagnostics, UTF-8 offered)."""
    await start(lsp_client, "neovim")
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(  # type: ignore[untyped-decorator]
    config=CONFIG, params=["visual-studio-code", "neovim"]
)
async def any_client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest
) -> AsyncIterator[LanguageClient]:
    """A session with each editor's capabilities in turn."""
    await start(lsp_client, str(request.param))
    yield lsp_client
    await lsp_client.shutdown_session()


def open_text(
    client: LanguageClient, text: str, path: Path | str, version: int = 1
) -> str:
    """didOpen a buffer; returns its URI."""
    uri = Path(path).resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=version, text=text
            )
        )
    )
    return uri


@pytest.fixture
def open_source() -> Callable[[LanguageClient, str, Path], str]:
    """Return `open(client, text, path) -> uri`: didOpen a buffer of any text."""
    return lambda client, text, path: open_text(client, text, path)


@pytest.fixture
def open_fixture() -> Callable[[LanguageClient, str], tuple[str, str]]:
    """Return `open(client, name) -> (uri, text)` for a C fixture."""

    def do(client: LanguageClient, name: str) -> tuple[str, str]:
        path = FIXTURES / name
        text = path.read_text(encoding="utf-8")
        return open_text(client, text, path), text

    return do


def _offset(text: str, position: types.Position, encoding: str) -> int:
    """Character index in `text` of an LSP position (a test-side reference)."""
    lines = text.split("\n")
    before = sum(len(line) + 1 for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= position.character:
            return before + i
        if encoding == "utf-8":
            units += len(ch.encode("utf-8"))
        elif encoding == "utf-16":
            units += 2 if ord(ch) > 0xFFFF else 1
        else:
            units += 1
    return before + len(line)


def apply_text_edits(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """Apply LSP text edits as an editor would (all against the original text)."""
    spans = sorted(
        (
            (
                _offset(text, e.range.start, encoding),
                _offset(text, e.range.end, encoding),
                i,
            )
            for i, e in enumerate(edits)
        ),
        reverse=True,
    )
    for start, end, i in spans:
        text = text[:start] + edits[i].new_text + text[end:]
    return text


@pytest.fixture
def apply_edits() -> ApplyEdits:
    """Return `apply(text, edits, encoding) -> text`."""
    return apply_text_edits


def position_of(
    text: str, needle: str, encoding: str = "utf-16", nth: int = 0
) -> types.Position:
    """The LSP position of the `nth` occurrence of `needle`."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at)
    start = text.rfind("\n", 0, at) + 1
    prefix = text[start:at]
    if encoding == "utf-8":
        character = len(prefix.encode("utf-8"))
    elif encoding == "utf-16":
        character = len(prefix.encode("utf-16-le")) // 2
    else:
        character = len(prefix)
    return types.Position(line=line, character=character)


@pytest.fixture
def at() -> Callable[..., types.Position]:
    """Return `position_of(text, needle, encoding="utf-16", nth=0)`."""
    return position_of
