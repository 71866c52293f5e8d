"""`accls --stdio` as a child process, spoken to in raw JSON-RPC (tests, benchmarks)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

__all__ = ["StdioServer"]

ROOT = Path(__file__).resolve().parents[2]


class StdioServer:
    """The server's pipes: send any bytes-worthy message, read framed replies."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT / "server"), env.get("PYTHONPATH", "")) if p
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "accls", "--stdio", "--log-level", "error", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        # (arrival time from time.perf_counter(), message), in arrival order.
        self.inbox: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.next_id = 0
        assert self.proc.stdout is not None
        threading.Thread(
            target=self._read, args=(self.proc.stdout,), daemon=True
        ).start()

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                return
            self.inbox.put((time.perf_counter(), json.loads(stream.read(length))))

    def send(self, message: dict[str, Any]) -> float:
        """Write one framed message as it is; the time it was sent."""
        body = json.dumps(message).encode("utf-8")
        assert self.proc.stdin is not None
        sent = time.perf_counter()
        self.proc.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        self.proc.stdin.flush()
        return sent

    def send_bytes(self, data: bytes) -> None:
        """Write raw bytes: a broken frame, a wrong length, anything."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self, wanted: int | None, timeout_s: float) -> dict[str, Any] | None:
        """The first response with id `wanted` within `timeout_s`, else None."""
        deadline = time.perf_counter() + timeout_s
        while (left := deadline - time.perf_counter()) > 0:
            try:
                _, message = self.inbox.get(timeout=left)
            except queue.Empty:
                return None
            if message.get("id") == wanted and "method" not in message:
                return message
        return None

    def notify(self, method: str, params: Any) -> float:
        """Send a notification; the time it was sent."""
        return self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def call(self, method: str, params: Any) -> tuple[int, float]:
        """Send a request with a fresh id; (the id, the time it was sent)."""
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        return self.next_id, self.send({**message, "params": params})
