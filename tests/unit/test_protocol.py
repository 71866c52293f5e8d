"""The server's JSON-RPC protocol on messages pygls handles badly by itself."""

from __future__ import annotations

import logging

import pytest
from accls.server.app import build_server


def test_a_notification_without_params_is_read_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # JSON-RPC makes `params` optional; pygls logged a traceback for each such
    # notification, which the adversarial benchmark counted as a crash.
    protocol = build_server().protocol
    with caplog.at_level(logging.ERROR):
        message = protocol.structure_message({"jsonrpc": "2.0", "method": "$/nothing"})
    assert message.method == "$/nothing"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
