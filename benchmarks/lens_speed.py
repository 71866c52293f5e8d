"""Code lenses of the language server on a 3,000-line C file (analysis backend).

Run: `.venv/bin/python benchmarks/lens_speed.py [--lines 3000] [--rounds 200]`.
Measures `textDocument/codeLens` cold (every function analysed for the first
time), warm (from the cache: the target is 20 ms p50), and after an edit in
one function. Prints the figures and writes benchmarks/out/lens_speed.json.
It reports; it never asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))
from lsp_latency import CAPABILITIES, Server, generated, percentiles  # noqa: E402

TARGET_P50_MS = 20.0


def run(lines: int, rounds: int) -> dict[str, float]:
    text = generated(lines)
    path = ROOT / "benchmarks" / "out" / "lens_speed_input.c"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    doc = {"uri": uri}
    server = Server()
    figures: dict[str, float] = {"lines": text.count("\n") + 1}
    try:
        server.request(
            "initialize",
            {
                "processId": os.getpid(),
                "capabilities": CAPABILITIES,
                "initializationOptions": {"workspaceIndex": False},
            },
        )
        server.notify("initialized", {})
        server.notify(
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
        ms, lenses = server.request("textDocument/codeLens", {"textDocument": doc})
        figures["lenses"] = len(lenses or [])
        figures["cold ms (every function analysed)"] = ms
        samples = [
            server.request("textDocument/codeLens", {"textDocument": doc})[0]
            for _ in range(rounds)
        ]
        figures["warm p50 ms"], figures["warm p99 ms"] = percentiles(samples)
        # An edit in one function: a new version, every function's lens again.
        row = text.split("\n").index(
            next(line for line in text.split("\n") if "for (" in line)
        )
        server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [
                    {
                        "range": {
                            "start": {"line": row, "character": 0},
                            "end": {"line": row, "character": 0},
                        },
                        "text": " ",
                    }
                ],
            },
        )
        figures["after an edit ms"] = server.request(
            "textDocument/codeLens", {"textDocument": doc}
        )[0]
        server.request("shutdown", None)
        server.notify("exit", None)
    finally:
        try:
            server.proc.wait(timeout=10)
        except Exception:
            server.proc.kill()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args(argv)
    started = time.monotonic()
    figures = run(args.lines, args.rounds)
    for key, value in figures.items():
        print(f"{key}: {value:.1f}" if isinstance(value, float) else f"{key}: {value}")
    verdict = "met" if figures["warm p50 ms"] <= TARGET_P50_MS else "missed"
    print(f"target warm p50 <= {TARGET_P50_MS:.0f} ms: {verdict}")
    print(f"({time.monotonic() - started:.0f} s in all)")
    out = ROOT / "benchmarks" / "out" / "lens_speed.json"
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
