"""A local OpenAI-compatible server (vLLM's protocol) serving a real model.

It answers `/v1/models`, `/v1/completions` and `/v1/chat/completions` with
`n`, `stop`, `temperature`, `max_tokens`, `logprobs` and grammar-constrained
decoding from `structured_outputs.regex` (or the legacy `guided_regex`),
generating with the transformers backend. Knobs make it misbehave for the
failure tests: hang, answer 500 a few times, return garbage, or return
scripted completions in place of the model's.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import regex
from accls.suggest.backends import Candidate
from accls.suggest.backends.transformers_local import TransformersBackend

__all__ = ["Knobs", "OpenAIServer", "serve"]

MODEL_NAME = "accls-tiny-test"


@dataclass
class Knobs:
    """How the server misbehaves; reset between tests."""

    hang: bool = False  # hold every request until released (or the server stops)
    fail_first: int = 0  # answer this many requests with HTTP 500 first
    garbage: bool = False  # 200 with a body that is not JSON
    script: list[str] = field(default_factory=list)  # completions to return instead
    reject_legacy: bool = False  # 400 on `guided_regex`, as vLLM >= 0.12 would


@dataclass
class OpenAIServer:
    """The running server: its base URL, knobs and the requests it received."""

    url: str
    knobs: Knobs
    requests: list[tuple[str, dict[str, Any]]]
    release: threading.Event

    def reset(self) -> None:
        """Back to a well-behaved server with an empty request log."""
        self.knobs = Knobs()
        self.requests.clear()
        self.release.set()
        self.release.clear()

    def posts(self, route: str) -> list[dict[str, Any]]:
        """Bodies of the POST requests to `route` (e.g. "/v1/completions")."""
        return [body for path, body in self.requests if path == route]


def _pattern(body: dict[str, Any]) -> tuple[str | None, str | None]:
    """The decoding regex of a request, or an error message."""
    structured = body.get("structured_outputs")
    if isinstance(structured, dict) and "regex" in structured:
        pattern = structured["regex"]
    elif "guided_regex" in body:
        pattern = body["guided_regex"]
    else:
        return None, None
    try:
        regex.compile(pattern)
    except (regex.error, TypeError):
        return None, "invalid regex in structured outputs"
    return str(pattern), None


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: pytest shows failures, not access logs

    def _send(self, status: int, payload: Any, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout tests)

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": MODEL_NAME}]})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        state = self.server.state
        length = int(self.headers.get("Content-Length", "0"))
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._send(400, {"error": {"message": "bad JSON"}})
            return
        state.requests.append((self.path, body))
        knobs = state.knobs
        if knobs.hang:
            state.release.wait(60)
            return
        if knobs.fail_first > 0:
            knobs.fail_first -= 1
            self._send(500, {"error": {"message": "engine overloaded"}})
            return
        if knobs.garbage:
            self._send(200, None, raw=b"<html>502 Bad Gateway</html>{")
            return
        if knobs.reject_legacy and "guided_regex" in body:
            self._send(400, {"error": {"message": "unknown field guided_regex"}})
            return
        if self.path == "/v1/completions":
            self._completions(body)
        elif self.path == "/v1/chat/completions":
            self._chat(body)
        else:
            self._send(404, {"error": {"message": "not found"}})

    def _generate(
        self, prompts: list[str], body: dict[str, Any]
    ) -> list[list[Candidate]] | None:
        pattern, error = _pattern(body)
        if error is not None:
            self._send(400, {"error": {"message": error}})
            return None
        n = int(body.get("n", 1))
        stop = body.get("stop") or []
        stop_text = stop if isinstance(stop, str) else (stop[0] if stop else "")
        script = self.server.state.knobs.script
        if script:
            made = [[Candidate(t, -0.5) for t in script[:n]] for _ in prompts]
        else:
            with self.server.lock:
                made = self.server.backend.generate(
                    prompts,
                    n,
                    temperature=float(body.get("temperature", 1.0)),
                    max_tokens=int(body.get("max_tokens", 16)),
                    patterns=[pattern] * len(prompts),
                    stop=stop_text,
                )
        # Greedy decoding gives one answer; the API still returns n choices.
        return [(found * n)[:n] if found else [] for found in made]

    def _completions(self, body: dict[str, Any]) -> None:
        prompt = body.get("prompt")
        prompts = [prompt] if isinstance(prompt, str) else list(prompt or [])
        made = self._generate([str(p) for p in prompts], body)
        if made is None:
            return
        n = int(body.get("n", 1))
        choices = [
            {
                "index": i * n + k,
                "text": cand.text,
                "logprobs": {"token_logprobs": [cand.score]},
                "finish_reason": "stop",
            }
            for i, found in enumerate(made)
            for k, cand in enumerate(found)
        ]
        self._send(200, _envelope("text_completion", body, choices))

    def _chat(self, body: dict[str, Any]) -> None:
        messages = body.get("messages") or []
        users = [m.get("content", "") for m in messages if m.get("role") == "user"]
        made = self._generate([str(users[-1]) if users else ""], body)
        if made is None:
            return
        choices = [
            {
                "index": k,
                "message": {"role": "assistant", "content": cand.text},
                "logprobs": {"content": [{"token": cand.text, "logprob": cand.score}]},
                "finish_reason": "stop",
            }
            for k, cand in enumerate(made[0])
        ]
        self._send(200, _envelope("chat.completion", body, choices))


def _envelope(kind: str, body: dict[str, Any], choices: list[Any]) -> dict[str, Any]:
    return {
        "id": f"cmpl-{time.monotonic_ns()}",
        "object": kind,
        "model": body.get("model", MODEL_NAME),
        "choices": choices,
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, backend: TransformersBackend, state: OpenAIServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.backend = backend
        self.state = state
        self.lock = threading.Lock()


@contextmanager
def serve(backend: TransformersBackend) -> Iterator[OpenAIServer]:
    """Run the server on 127.0.0.1 on a free port, in a thread, until exit."""
    state = OpenAIServer("", Knobs(), [], threading.Event())
    server = _Server(backend, state)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
