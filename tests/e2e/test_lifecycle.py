"""Start-up, capabilities, shutdown and exit, over stdio and TCP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parents[2]


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "server"), out.get("PYTHONPATH", "")) if p
    )
    return out


class Readable(Protocol):
    def readline(self) -> bytes: ...
    def read(self, size: int, /) -> bytes: ...


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body


def read_frame(stream: Readable) -> dict[str, Any]:
    length = None
    while True:
        line = stream.readline()
        assert line, "the server closed its output"
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        assert name.lower() in ("content-length", "content-type"), line
        if name.lower() == "content-length":
            length = int(value)
    assert length is not None
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def response(stream: Readable, request_id: int) -> dict[str, Any]:
    while True:
        message = read_frame(stream)
        if message.get("id") == request_id and "method" not in message:
            return message


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"processId": None, "rootUri": None, "capabilities": {}},
}


def test_stdio_session_and_exit_codes() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "accls", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(frame(INITIALIZE))
    proc.stdin.flush()
    result = response(proc.stdout, 1)["result"]
    caps = result["capabilities"]
    assert result["serverInfo"]["name"] == "accls"
    assert caps["textDocumentSync"]["change"] == 2  # incremental
    assert caps["codeActionProvider"]["resolveProvider"] is True
    assert caps["hoverProvider"] is True
    assert caps["executeCommandProvider"]["commands"] == [
        "accls.recordApplied",
        "accls.checkLoop",
        "accls.verifyLoop",  # the earlier name of accls.checkLoop, still answered
        "accls.explainLoop",
        "accls.applyLoopAction",
    ]
    assert caps["codeLensProvider"] == {"resolveProvider": False}
    assert caps["positionEncoding"] == "utf-16"
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    proc.stdin.flush()
    assert response(proc.stdout, 2)["result"] is None
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    proc.stdin.flush()
    assert proc.wait(timeout=20) == 0
    assert proc.stdout.read() == b""  # nothing but protocol on stdout
    if proc.stderr is not None:
        proc.stderr.close()


def test_exit_without_shutdown_is_an_error() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "accls", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env(),
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(frame(INITIALIZE))
    proc.stdin.flush()
    response(proc.stdout, 1)
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    proc.stdin.flush()
    assert proc.wait(timeout=20) == 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_tcp(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "accls", "--tcp", str(port), "--log-file", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=20)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.05)
        with sock, sock.makefile("rb") as stream, sock.makefile("wb") as out:
            out.write(frame(INITIALIZE))
            out.flush()
            assert "capabilities" in response(stream, 1)["result"]
            out.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
            out.flush()
            response(stream, 2)
            out.write(frame({"jsonrpc": "2.0", "method": "exit"}))
            out.flush()
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.stdout is not None
    assert proc.stdout.read() == b""
    assert log.is_file()


def test_bad_command_lines() -> None:
    for args, message in (
        (["--tcp", "0"], "--tcp: not a port"),
        (["--stdio", "check", "x.c"], "drop the command"),
        (["--stdio", "--log-file", "/nonexistent/dir/log"], "--log-file"),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "accls", *args],
            capture_output=True,
            text=True,
            env=env(),
            timeout=60,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr
        assert "Traceback" not in proc.stderr
