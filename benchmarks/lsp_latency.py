"""Latency of the language server over stdio, on a 3,000-line C file (analysis backend).

Run: `.venv/bin/python benchmarks/lsp_latency.py [--lines 3000] [--rounds 200]`.
Prints p50/p99 of each measurement and the server's resident memory, and writes
them to benchmarks/out/lsp_latency.json. It reports; it never asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from support.stdio_server import StdioServer  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "c"
TARGETS = {
    "listing p50": 20.0,
    "listing p99": 100.0,
    "hover p50": 20.0,
    "resolve p50": 150.0,
    "burst drain": 500.0,
}


def generated(lines: int) -> str:
    """The fixtures' kernels repeated, functions renamed, to at least `lines` lines."""
    kernels = [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob("*.c"))]
    names = re.compile(r"^(static\s+)?(\w[\w\s\*]*?)\b(\w+)(\s*\()", re.M)
    parts: list[str] = []
    total = 0
    copy = 0
    while total < lines:
        for text in kernels:
            suffix = f"_{copy}"

            def rename(m: re.Match[str], s: str = suffix) -> str:
                return m.group(0).replace(m.group(3) + m.group(4), m.group(3) + s + "(")

            body = names.sub(rename, text)
            parts.append(re.sub(r"\bmain\b", f"main{suffix}", body))
            total += body.count("\n") + 1
            if total >= lines:
                break
        copy += 1
    return "\n".join(parts)


class Server(StdioServer):
    """`accls --stdio` as a child process, with timings."""

    def wait(self, match: Any, timeout: float = 120.0) -> tuple[float, dict[str, Any]]:
        """The first message for which `match(message)` holds, with its arrival time."""
        deadline = time.monotonic() + timeout
        while True:
            at, message = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            if "method" in message and "id" in message:  # a request to the client
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            if match(message):
                return at, message

    def request(self, method: str, params: Any) -> tuple[float, Any]:
        """(milliseconds until the answer, the result)."""
        wanted, sent = self.call(method, params)
        at, message = self.wait(lambda m: m.get("id") == wanted and "method" not in m)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return (at - sent) * 1000, message.get("result")

    def rss_mb(self) -> tuple[float, float]:
        """Resident and peak resident memory, MB."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        values = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", status, re.M))
        return int(values["VmRSS"]) / 1024, int(values["VmHWM"]) / 1024


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), p99


def loop_positions(text: str) -> list[dict[str, int]]:
    """A position inside each loop body line that follows a `for` header."""
    out = []
    lines = text.split("\n")
    for row, line in enumerate(lines[:-1]):
        if re.match(r"\s*for \(", line):
            column = len(line) - len(line.lstrip())
            out.append({"line": row, "character": column})
    return out


CAPABILITIES = {
    "textDocument": {
        "codeAction": {
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["refactor", "quickfix"]}
            },
            "resolveSupport": {"properties": ["edit"]},
            "dataSupport": True,
        },
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "publishDiagnostics": {"versionSupport": True},
    }
}


def run(lines: int, rounds: int) -> dict[str, float]:
    text = generated(lines)
    path = ROOT / "benchmarks" / "out" / "lsp_latency_input.c"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    doc = {"uri": uri}
    server = Server()
    figures: dict[str, float] = {"lines": text.count("\n") + 1}
    try:
        server.request(
            "initialize", {"processId": os.getpid(), "capabilities": CAPABILITIES}
        )
        server.notify("initialized", {})
        opened = server.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": "c",
                    "version": 1,
                    "text": text,
                }
            },
        )
        at, _ = server.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
        )
        figures["first diagnostics (open + 300 ms debounce + check)"] = (
            at - opened
        ) * 1000
        positions = loop_positions(text)
        figures["loops"] = len(positions)
        actions: list[dict[str, Any]] = []
        cold = []
        offered = []  # the positions whose listing offers something
        for where in positions:  # first listing per function: analysis of the slice
            ms, result = server.request(
                "textDocument/codeAction",
                {
                    "textDocument": doc,
                    "range": {"start": where, "end": where},
                    "context": {"diagnostics": []},
                },
            )
            cold.append(ms)
            if result:
                offered.append(where)
            actions.extend(
                a
                for a in result or []
                if a["title"].startswith("Parallelize with OpenACC")
            )
        figures["listing cold p50"], figures["listing cold p99"] = percentiles(cold)
        # Warm: an editing session's working set, 24 loops in a few functions, whose
        # analyses stay cached (the server keeps the last 48 functions per version).
        working = positions[:: max(1, len(positions) // 24)][:24]
        for where in working:
            server.request(
                "textDocument/codeAction",
                {
                    "textDocument": doc,
                    "range": {"start": where, "end": where},
                    "context": {"diagnostics": []},
                },
            )
        samples = []
        for i in range(rounds):
            where = working[(i * 7) % len(working)]
            ms, _ = server.request(
                "textDocument/codeAction",
                {
                    "textDocument": doc,
                    "range": {"start": where, "end": where},
                    "context": {"diagnostics": []},
                },
            )
            samples.append(ms)
        figures["listing p50"], figures["listing p99"] = percentiles(samples)
        samples = []
        for i in range(rounds):
            where = working[(i * 7) % len(working)]
            ms, _ = server.request(
                "textDocument/hover", {"textDocument": doc, "position": where}
            )
            samples.append(ms)
        figures["hover p50"], figures["hover p99"] = percentiles(samples)
        samples = []
        for action in actions[: min(len(actions), 40)]:
            ms, result = server.request("codeAction/resolve", action)
            if result.get("edit") is None and result.get("disabled") is None:
                raise RuntimeError(
                    f"resolve gave neither an edit nor a reason: {result}"
                )
            samples.append(ms)
        figures["resolves"] = len(samples)
        figures["resolve p50"], figures["resolve p99"] = percentiles(samples)
        figures["rss after warm-up MB"], _ = server.rss_mb()
        # A burst of keystrokes inside a loop body, then a listing at that loop
        # (one that offered actions before: a refused loop offers none after).
        where = offered[len(offered) // 2]
        row = where["line"] + 1
        base = text.split("\n")[row]
        column = len(base) - len(base.lstrip())
        version = 1
        last = 0.0
        for i in range(100):
            version += 1
            # Type "/*12345...*/"-like text: each keystroke inserts one character.
            char = "/*"[i] if i < 2 else ("*/"[i - 98] if i >= 98 else str(i % 10))
            last = server.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [
                        {
                            "range": {
                                "start": {"line": row, "character": column + i},
                                "end": {"line": row, "character": column + i},
                            },
                            "text": char,
                        }
                    ],
                },
            )
        _, result = server.request(
            "textDocument/codeAction",
            {
                "textDocument": doc,
                "range": {"start": where, "end": where},
                "context": {"diagnostics": []},
            },
        )
        figures["burst drain"] = (time.perf_counter() - last) * 1000
        if not result:
            raise RuntimeError("the listing after the burst offered nothing")
        at, _ = server.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"].get("version") == version
            )
        )
        figures["diagnostics after burst"] = (at - last) * 1000
        figures["rss MB"], figures["peak rss MB"] = server.rss_mb()
        server.request("shutdown", None)
        server.notify("exit", None)
        server.proc.wait(timeout=30)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args(argv)
    figures = run(args.lines, args.rounds)
    for name, value in figures.items():
        target = TARGETS.get(name)
        goal = (
            f"   (target < {target:g} ms: {'met' if value < target else 'MISSED'})"
            if target
            else ""
        )
        unit = (
            ""
            if name in ("lines", "loops", "resolves")
            else (" MB" if "MB" in name else " ms")
        )
        shown = f"{value:.0f}" if unit != " ms" else f"{value:.1f}"
        print(f"{name.replace(' MB', ''):55s} {shown:>9s}{unit}{goal}")
    out = ROOT / "benchmarks" / "out" / "lsp_latency.json"
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
