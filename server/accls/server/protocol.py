"""The JSON-RPC protocol, answering requests whose params do not parse.

pygls drops a request whose params fail to deserialize without a response, so
the client waits forever. Here such a request gets an InvalidParams error, and a
request before `initialize` gets ServerNotInitialized (-32002), as LSP requires.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams, JsonRpcServerNotInitialized
from pygls.protocol import LanguageServerProtocol

__all__ = ["AcclsProtocol"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Malformed:
    """A request that could not be deserialized: answered with an error."""

    id: int | str
    method: str
    reason: str


class AcclsProtocol(LanguageServerProtocol):
    """LanguageServerProtocol that answers malformed and premature requests."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_seen = False

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Deserialize a message; a malformed request becomes `_Malformed`."""
        if "jsonrpc" in data and "method" in data and "params" not in data:
            # JSON-RPC makes params optional; pygls logs a traceback without them.
            data = {**data, "params": None}
        try:
            return super().structure_message(data)
        except Exception as exc:
            request_id = data.get("id")
            method = data.get("method")
            if isinstance(request_id, int | str) and isinstance(method, str):
                cause = exc.__cause__ or exc
                reason = (
                    str(cause).splitlines()[0] if str(cause) else type(cause).__name__
                )
                return _Malformed(request_id, method, reason)
            # A notification, or a dict nested in params: nothing to answer.
            return data

    def handle_message(self, message: Any) -> None:
        """Answer malformed and premature requests; hand the rest to pygls."""
        method = getattr(message, "method", None)
        if not self.initialize_seen and method not in ("initialize", "exit"):
            request_id = getattr(message, "id", None)
            if isinstance(method, str) and isinstance(request_id, int | str):
                early = JsonRpcServerNotInitialized(f"{method} before initialize")
                self._send_response(request_id, None, early.to_response_error())
            return  # notifications before initialize are dropped, as LSP says
        if isinstance(message, _Malformed):
            log.warning("invalid params for %s: %s", message.method, message.reason)
            error = JsonRpcInvalidParams(f"invalid params for {message.method}")
            self._send_response(message.id, None, error.to_response_error())
            return
        if not hasattr(message, "jsonrpc"):
            log.warning("dropped a message that is not JSON-RPC: %.200r", message)
            return
        if method == "initialize":
            self.initialize_seen = True
        super().handle_message(message)
