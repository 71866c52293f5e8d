"""Fuzz: random edits, invalid ranges and malformed params never kill the server.

The client here is raw JSON-RPC over the server's stdin/stdout, so messages can
be malformed in ways a typed client refuses to send. What is asserted is
behaviour, never how many examples ran (that depends on the machine's speed):
every request is answered, with a result or an invalid-params error (never an
internal error); afterwards the server is alive and answers a resynchronised
file as it answered the fresh one.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.stdio_server import StdioServer

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "tests" / "fixtures" / "c" / "dot_product.c").read_text(encoding="utf-8")
URI = (ROOT / "tests" / "fixtures" / "c" / "dot_product.c").as_uri()
TIMEOUT_S = 20.0
INVALID_PARAMS = -32602


class RawClient(StdioServer):
    """JSON-RPC over a child's pipes: send anything, wait for answers by id."""

    def request(self, method: str, params: Any) -> dict[str, Any]:
        """The response: it must come, with a result or an invalid-params error.

        A handler that crashes answers an internal error instead, and fails.
        """
        wanted, _ = self.call(method, params)
        while True:
            try:
                _, answer = self.inbox.get(timeout=TIMEOUT_S)
            except queue.Empty:
                pytest.fail(f"no answer to {method} {params!r} within {TIMEOUT_S} s")
            if answer.get("id") == wanted and "method" not in answer:
                assert ("result" in answer) != ("error" in answer), answer
                if "error" in answer:
                    assert answer["error"]["code"] == INVALID_PARAMS, answer
                    assert isinstance(answer["error"].get("message"), str), answer
                return answer

    def succeeds(self, method: str, params: Any) -> Any:
        """The result of a request that must succeed: an error fails the test."""
        answer = self.request(method, params)
        assert "result" in answer, (method, params, answer)
        return answer["result"]


@pytest.fixture(scope="module")
def server() -> Iterator[RawClient]:
    client = RawClient()
    client.request(
        "initialize", {"processId": None, "rootUri": None, "capabilities": {}}
    )
    client.notify("initialized", {})
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": URI, "languageId": "c", "version": 1, "text": TEXT}},
    )
    yield client
    client.request("shutdown", None)
    client.notify("exit", None)
    assert client.proc.wait(timeout=20) == 0


positions = st.fixed_dictionaries(
    {"line": st.integers(min_value=0, max_value=60), "character": st.integers(0, 120)}
)
ranges = st.fixed_dictionaries(
    {"start": positions, "end": positions}
)  # may be reversed
snippets = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "for (int k = 0; k < n; k++) ",
            "#pragma acc parallel loop\n",
            "#pragma omp parallel for reduction(+:s)\n",
            "{",
            "}",
            "\n",
            "/* é😀 */",
            '"ü"',
        ]
    ),
)
junk = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.text(max_size=8)
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(max_size=8), inner, max_size=3),
    ),
    max_leaves=6,
)
doc = {"uri": URI}
operations = st.lists(
    st.one_of(
        st.tuples(st.just("edit"), ranges, snippets),
        st.tuples(st.just("replace"), st.just(None), snippets),
        st.tuples(
            st.sampled_from(["action", "hover", "resolve", "verify", "diagnostic"]),
            ranges,
            st.just(""),
        ),
        st.tuples(
            st.sampled_from(
                [
                    "textDocument/codeAction",
                    "textDocument/hover",
                    "codeAction/resolve",
                    "workspace/executeCommand",
                    "textDocument/diagnostic",
                    "textDocument/didChange",
                    "workspace/didChangeConfiguration",
                ]
            ),
            junk,
            st.just("malformed"),
        ),
    ),
    min_size=1,
    max_size=8,
)


def run(server: RawClient, version: int, op: tuple[str, Any, str]) -> int:
    kind, where, text = op
    if kind in ("edit", "replace"):
        version += 1
        change = {"text": text} if where is None else {"range": where, "text": text}
        server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": URI, "version": version},
                "contentChanges": [change],
            },
        )
    elif kind == "action":
        server.request(
            "textDocument/codeAction",
            {"textDocument": doc, "range": where, "context": {"diagnostics": []}},
        )
    elif kind == "hover":
        server.request(
            "textDocument/hover", {"textDocument": doc, "position": where["start"]}
        )
    elif kind == "diagnostic":
        server.request("textDocument/diagnostic", {"textDocument": doc})
    elif kind == "resolve":
        data = {
            "uri": URI,
            "version": version,
            "kind": "loop",
            "model": "openacc",
            "target": "gpu",
            "loop": where["start"]["character"] * 7,
        }
        server.request("codeAction/resolve", {"title": "x", "data": data})
    elif kind == "verify":
        server.request(
            "workspace/executeCommand",
            {
                "command": "accls.verifyLoop",
                "arguments": [{"uri": URI, "position": where["start"]}],
            },
        )
    elif kind.endswith(("didChange", "didChangeConfiguration")):
        server.notify(kind, where)
    else:
        server.request(kind, where)
    return version


def observe(server: RawClient) -> tuple[list[str], Any, Any]:
    """What the server says of the dot product's loop: actions, diagnostics, hover."""
    lines = TEXT.split("\n")
    where = {"line": lines.index("        s += x[i] * y[i];"), "character": 8}
    keyword = {"line": lines.index("    for (int i = 0; i < n; i++)"), "character": 4}
    actions = server.succeeds(
        "textDocument/codeAction",
        {
            "textDocument": doc,
            "range": {"start": where, "end": where},
            "context": {"diagnostics": []},
        },
    )
    report = server.succeeds("textDocument/diagnostic", {"textDocument": doc})
    hover = server.succeeds(
        "textDocument/hover", {"textDocument": doc, "position": keyword}
    )
    return [a["title"] for a in actions], report["items"], hover


def test_fuzz(server: RawClient) -> None:
    state = {"version": 1}

    @settings(
        max_examples=60,
        database=None,  # no .hypothesis/ folder in the repository
        deadline=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
        ],
    )
    @given(ops=operations)
    def example(ops: list[tuple[str, Any, str]]) -> None:
        for op in ops:
            state["version"] = run(server, state["version"], op)

    fresh = observe(server)
    titles, _, hover = fresh
    assert titles
    assert "reduction(+:s)" in titles[0]
    assert "reduction" in hover["contents"]["value"]
    example()
    assert server.proc.poll() is None, "the server exited during the fuzz"
    # Alive and consistent: after a full resync the answers are those of the
    # fresh file.
    state["version"] += 1
    server.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": URI, "version": state["version"]},
            "contentChanges": [{"text": TEXT}],
        },
    )
    server.notify("workspace/didChangeConfiguration", {"settings": {"accls": {}}})
    assert observe(server) == fresh
