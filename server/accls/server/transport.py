"""Reading framed JSON-RPC from stdin that survives a wrong `Content-Length`.

pygls reads exactly `Content-Length` bytes: a header larger than its body swallows
the next message, and every later header then starts mid-line, so the server stays
alive and answers nothing. Here a body is read as bytes arrive; when a complete
JSON value is followed by the next `Content-Length:` header before the declared
length is reached, the length was wrong: the value is taken and the rest is read
as the next message. A body that is not JSON gets a -32700 response, and reading
resumes at the next header found in it.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import cast

from pygls.exceptions import JsonRpcParseError
from pygls.io_ import StdoutWriter
from pygls.protocol import JsonRPCProtocol
from pygls.server import JsonRPCServer

__all__ = ["FrameReader", "run_stdio", "serve_frames"]

log = logging.getLogger(__name__)

_HEADER = b"Content-Length:"
_LENGTH = re.compile(rb"Content-Length:\s*(\d+)", re.IGNORECASE)
_CHUNK = 1 << 16
_MAX_HEADER = 1 << 16  # a header line longer than this is garbage


def _json(data: bytes | bytearray) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


class FrameReader:
    """Frames from a byte source that returns whatever is available (`read1`)."""

    def __init__(self, read1: Callable[[int], Awaitable[bytes]]) -> None:
        self._read1 = read1
        self._buffer = bytearray()
        self._eof = False

    async def _fill(self) -> bool:
        if self._eof:
            return False
        chunk = await self._read1(_CHUNK)
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    async def _line(self) -> bytes | None:
        """One header line (with its end), or None at the end of input."""
        searched = 0
        while True:
            end = self._buffer.find(b"\n", searched)
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                return line
            searched = len(self._buffer)
            if searched > _MAX_HEADER:
                line = bytes(self._buffer)
                self._buffer.clear()
                return line
            if not await self._fill():
                return bytes(self._buffer) or None

    async def _header(self) -> int | None:
        """The declared length of the next message; None at the end of input."""
        length: int | None = None
        while True:
            line = await self._line()
            if line is None:
                return None
            if not line.strip():
                if length is not None:
                    return length
                continue  # stray blank lines between messages
            # A header may follow garbage on its line (a short body before it).
            at = line.find(_HEADER)
            match = _LENGTH.match(line, at) if at >= 0 else None
            if match is not None:
                length = int(match.group(1))
            elif length is None and at < 0 and b":" not in line:
                log.warning("skipped bytes that are not a header: %.80r", line)

    async def _body(self, length: int) -> bytes:
        """`length` bytes, or fewer when a complete JSON value ends at a header.

        A header inside a JSON string never splits a body: the text before it is
        then not a complete JSON value.
        """
        searched = 0
        while True:
            at = self._buffer.find(_HEADER, searched)
            while 0 < at < length:
                if _json(self._buffer[:at]):
                    log.warning(
                        "Content-Length %d is larger than its body (%d bytes)",
                        length,
                        at,
                    )
                    body = bytes(self._buffer[:at])
                    del self._buffer[:at]
                    return body
                at = self._buffer.find(_HEADER, at + 1)
            if len(self._buffer) >= length:
                break
            searched = max(0, len(self._buffer) - len(_HEADER))
            if not await self._fill():
                break
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        return body

    def resync(self, body: bytes) -> None:
        """Put back what follows the first header inside an unparsable body."""
        at = body.find(_HEADER, 1)
        if at > 0:
            self._buffer[:0] = body[at:]

    async def next_body(self) -> bytes | None:
        """The next message body; None at the end of input."""
        length = await self._header()
        if length is None:
            return None
        return await self._body(length)


async def serve_frames(
    reader: FrameReader, protocol: JsonRPCProtocol, stopped: Callable[[], bool]
) -> None:
    """Hand each parsable body to `protocol`; answer the others with -32700."""
    while not stopped():
        body = await reader.next_body()
        if body is None:
            return
        try:
            message = json.loads(body, object_hook=protocol.structure_message)
        except ValueError as exc:
            log.warning("unparsable message: %s", exc)
            error = {"code": JsonRpcParseError.CODE, "message": f"Parse error: {exc}"}
            protocol._send_data({"jsonrpc": "2.0", "id": None, "error": error})
            reader.resync(body)
            continue
        try:
            protocol.handle_message(message)
        except Exception:  # one bad message must not end the server
            log.exception("unable to handle a message")


def run_stdio(server: JsonRPCServer) -> None:
    """Serve the protocol over stdin/stdout until the input ends or `exit`."""
    stdin = cast(io.BufferedReader, sys.stdin.buffer)
    server._stop_event = stop = threading.Event()  # pygls's own flag
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def read1(size: int) -> Awaitable[bytes]:
            return loop.run_in_executor(server.thread_pool, stdin.read1, size)

        await serve_frames(FrameReader(read1), server.protocol, stop.is_set)

    try:
        asyncio.run(main())
    except BrokenPipeError:
        log.error("the client closed the connection; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
