"""Broken framing and premature requests: answered, never a server that hangs alive."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from support.stdio_server import StdioServer

TIMEOUT_S = 20.0
INIT: dict[str, object] = {"processId": None, "rootUri": None, "capabilities": {}}


@pytest.fixture
def server() -> Iterator[StdioServer]:
    client = StdioServer()
    yield client
    if client.proc.poll() is None:
        client.proc.kill()
    client.proc.wait(timeout=20)


def _initialized(client: StdioServer) -> None:
    wanted, _ = client.call("initialize", INIT)
    assert client.answer(wanted, TIMEOUT_S) is not None
    client.notify("initialized", {})


def _frame(message: dict[str, object], extra: int = 0) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return f"Content-Length: {len(body) + extra}\r\n\r\n".encode() + body


def test_a_request_before_initialize_gets_32002(server: StdioServer) -> None:
    wanted, _ = server.call("textDocument/hover", {})
    answer = server.answer(wanted, TIMEOUT_S)
    assert answer is not None
    assert answer["error"]["code"] == -32002
    _initialized(server)  # and the server still starts normally


def test_unparsable_json_gets_32700_and_the_server_goes_on(
    server: StdioServer,
) -> None:
    _initialized(server)
    server.send_bytes(b"Content-Length: 9\r\n\r\n{not json")
    answer = server.answer(None, TIMEOUT_S)
    assert answer is not None
    assert answer["error"]["code"] == -32700
    wanted, _ = server.call("shutdown", None)
    assert server.answer(wanted, TIMEOUT_S) == {
        "jsonrpc": "2.0",
        "id": wanted,
        "result": None,
    }


def test_a_content_length_larger_than_its_body_does_not_desynchronise(
    server: StdioServer,
) -> None:
    _initialized(server)
    # The header claims 40 bytes more than the body holds; the next request's
    # bytes would complete it, and pygls then lost every later message.
    server.send_bytes(_frame({"jsonrpc": "2.0", "method": "$/nothing"}, extra=40))
    for _ in range(3):
        wanted, _ = server.call("workspace/executeCommand", {"command": "nothing"})
        answer = server.answer(wanted, TIMEOUT_S)
        assert answer is not None, "a request after the bad header went unanswered"
    wanted, _ = server.call("shutdown", None)
    assert server.answer(wanted, TIMEOUT_S) is not None
