"""The language-server cases of benchmarks/adversarial.py, over raw stdio JSON-RPC."""

from __future__ import annotations

import contextlib
import json
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from adversarial_inputs import busy_document, long_loop

__all__ = ["lsp_big_document", "lsp_busy_pair", "lsp_short_length"]

_CAPABILITIES: dict[str, Any] = {
    "textDocument": {
        "codeAction": {
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["refactor", "quickfix"]}
            },
            "resolveSupport": {"properties": ["edit"]},
            "dataSupport": True,
        },
        "publishDiagnostics": {},
    },
    "window": {"workDoneProgress": True},
}


class _Server:
    """`accls --stdio` with a reader thread; messages arrive in `inbox`."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "accls", "--stdio", "--log-level", "error"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.inbox: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.next_id = 0
        self.stderr = b""
        self.seen: list[dict[str, Any]] = []  # every message, matched or not
        assert self.proc.stdout is not None
        assert self.proc.stderr is not None
        threading.Thread(
            target=self._read, args=(self.proc.stdout,), daemon=True
        ).start()
        threading.Thread(
            target=self._drain, args=(self.proc.stderr,), daemon=True
        ).start()

    def _drain(self, stream: IO[bytes]) -> None:
        self.stderr = stream.read()

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                return
            message = json.loads(stream.read(length))
            if "method" in message and "id" in message:  # a request to the client
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            self.inbox.put((time.perf_counter(), message))

    def send_bytes(self, data: bytes) -> float:
        assert self.proc.stdin is not None
        sent = time.perf_counter()
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        return sent

    def send(self, message: dict[str, Any]) -> float:
        body = json.dumps(message).encode("utf-8")
        return self.send_bytes(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)

    def call(self, method: str, params: Any) -> tuple[int, float]:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        return self.next_id, self.send({**message, "params": params})

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, match: Any, timeout: float) -> tuple[float, dict[str, Any]] | None:
        deadline = time.perf_counter() + timeout
        while (left := deadline - time.perf_counter()) > 0:
            try:
                at, message = self.inbox.get(timeout=left)
            except queue.Empty:
                return None
            self.seen.append(message)
            if match(message):
                return at, message
        return None

    def answer(
        self, wanted: int, timeout: float
    ) -> tuple[float, dict[str, Any]] | None:
        return self.wait(lambda m: m.get("id") == wanted and "method" not in m, timeout)

    def start(self, timeout: float) -> bool:
        params = {"processId": None, "rootUri": None, "capabilities": _CAPABILITIES}
        wanted, _ = self.call("initialize", params)
        if self.answer(wanted, timeout) is None:
            return False
        self.notify("initialized", {})
        return True

    def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        item = {"uri": uri, "languageId": "c", "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": item})
        return uri

    def peak_mb(self) -> float:
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
            found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
            if found:
                return int(found.group(1)) / 1024
        return 0.0

    def stop(self) -> dict[str, Any]:
        """Shut down (or kill); the peak memory and tracebacks it logged."""
        peak = self.peak_mb()
        wanted, _ = self.call("shutdown", None)
        self.answer(wanted, 5)
        self.notify("exit", None)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        time.sleep(0.1)  # let the stderr reader finish
        text = self.stderr.decode("utf-8", "replace")
        return {"peak_mb": peak, "tracebacks": text.count("Traceback (most recent")}


def _actions(uri: str, line: int) -> dict[str, Any]:
    at = {"line": line, "character": 8}
    return {
        "textDocument": {"uri": uri},
        "range": {"start": at, "end": at},
        "context": {"diagnostics": []},
    }


def lsp_big_document(env: dict[str, str], work: Path, timeout: float) -> dict[str, Any]:
    """Diagnostics of a 5 MB document: how long, how much memory, what is said."""
    server = _Server(env)
    if not server.start(timeout):
        return {"outcome": "no answer to initialize", **server.stop()}
    text = busy_document(31_000)  # about 5 MB
    sent = time.perf_counter()
    uri = server.open(work / "big5mb.c", text)
    pushed = server.wait(
        lambda m: (
            m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
        ),
        timeout,
    )
    notes = [
        m["params"]["message"][:64]
        for m in server.seen
        if m.get("method") == "window/showMessage"
    ]
    if pushed is None:
        outcome = f"no diagnostics within {timeout:g} s"
    else:
        count = len(pushed[1]["params"]["diagnostics"])
        outcome = f"{count} diagnostic(s) after {pushed[0] - sent:.1f} s"
    if notes:
        outcome += f" ({notes[0]}...)"
    return {"outcome": outcome, **server.stop()}


def lsp_busy_pair(env: dict[str, str], work: Path, timeout: float) -> dict[str, Any]:
    """Two requests on a pathological document, then one on a small document."""
    server = _Server(env)
    if not server.start(timeout):
        return {"outcome": "no answer to initialize", **server.stop()}
    # Two functions, each one loop of 2,000 statements of distinct subscripts.
    body = [f"        a[i + {k}] = b[i - {k}] * 2.0;" for k in range(2000)]
    loop = "    for (int i = 0; i < n; i++) {\n" + "\n".join(body) + "\n    }\n"
    head = "void f{k}(int n, double *restrict a, double *restrict b) {{\n"
    busy = "".join(head.format(k=k) + loop + "}\n" for k in range(2))
    busy_uri = server.open(work / "busy.c", busy)
    small_uri = server.open(work / "small.c", long_loop(3))
    lines = [row for row, text in enumerate(busy.split("\n")) if "for (" in text]
    for line in lines:
        server.call("textDocument/codeAction", _actions(busy_uri, line + 1))
    time.sleep(0.5)  # let both reach the workers
    wanted, sent = server.call("textDocument/codeAction", _actions(small_uri, 2))
    got = server.answer(wanted, timeout)
    wait = (got[0] - sent) if got is not None else timeout
    outcome = "answered" if got is not None else f"unanswered after {timeout:g} s"
    return {
        "outcome": f"small document {outcome} in {wait:.2f} s",
        "longest_wait_s": wait,
        **server.stop(),
    }


def lsp_short_length(env: dict[str, str], work: Path, timeout: float) -> dict[str, Any]:
    """A Content-Length 40 bytes larger than its body, then ordinary requests."""
    server = _Server(env)
    if not server.start(timeout):
        return {"outcome": "no answer to initialize", **server.stop()}
    body = json.dumps({"jsonrpc": "2.0", "method": "$/nothing"}).encode()
    server.send_bytes(f"Content-Length: {len(body) + 40}\r\n\r\n".encode() + body)
    answered = 0
    probe = _actions((work / "nowhere.c").as_uri(), 0)  # answered with null
    for _ in range(3):
        wanted, _ = server.call("textDocument/codeAction", probe)
        if server.answer(wanted, 10) is not None:
            answered += 1
    alive = server.proc.poll() is None
    state = "alive" if alive else f"exited {server.proc.returncode}"
    outcome = f"{answered} of 3 later requests answered, server {state}"
    return {"outcome": outcome, **server.stop()}
