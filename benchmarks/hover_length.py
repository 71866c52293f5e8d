"""How long is the hover on a loop, in lines, on a folder of real C files?

Run: `.venv/bin/python benchmarks/hover_length.py DIR [--server-root ROOT]
[--max-files 120]`. DIR is, for example, the dev sources written out by
`/work/shared/tools/materialize.py DIR`. The files' omp/acc pragmas are
stripped first (so the hover analyses the loop instead of naming the expert's
pragma); each `for` header is hovered once, through `accls --stdio` from ROOT's
`server/` (default: this tree; give another checkout to measure the hover
before a change). Prints the median and largest length and writes them to
benchmarks/out/hover_length.json. It reports; it never asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import statistics
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))
from lsp_latency import CAPABILITIES, Server  # noqa: E402
from source_edit import pragma_blocks, strip_blocks  # noqa: E402

_HEADER = re.compile(r"^(\s*)for\s*\(")


class RootServer(Server):
    """`accls --stdio` run from another checkout's `server/` folder."""

    def __init__(self, root: Path) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(root / "server")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "accls", "--stdio", "--log-level", "error"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.inbox = queue.Queue()
        self.next_id = 0
        assert self.proc.stdout is not None
        threading.Thread(
            target=self._read, args=(self.proc.stdout,), daemon=True
        ).start()


def stripped(text: str) -> str:
    """The text without its omp/acc pragmas."""
    lines = text.split("\n")
    blocks = [b for b in pragma_blocks(lines) if b.dialect in ("omp", "acc")]
    return strip_blocks(text, blocks).text


def headers(text: str) -> list[dict[str, int]]:
    """The position of each line's leading `for`."""
    out = []
    for row, line in enumerate(text.split("\n")):
        match = _HEADER.match(line)
        if match is not None:
            out.append({"line": row, "character": len(match.group(1))})
    return out


def sample(folder: Path, most: int) -> list[Path]:
    """Up to `most` C files, spread evenly over the sorted list."""
    files = sorted(folder.rglob("*.c"))
    step = max(1, len(files) // most) if most else 1
    return files[::step][:most] if most else files


def measure(root: Path, files: list[Path]) -> dict[str, Any]:
    server = RootServer(root)
    lengths: list[int] = []
    longest: tuple[int, str, str] = (0, "", "")
    try:
        server.request(
            "initialize",
            {
                "processId": os.getpid(),
                "capabilities": CAPABILITIES,
                "clientInfo": {"name": "Visual Studio Code"},
                # Hover never compiles; the diagnostics' checks only cost time here.
                "initializationOptions": {"workspaceIndex": False},
            },
        )
        server.notify("initialized", {})
        for path in files:
            text = stripped(path.read_text(encoding="utf-8", errors="replace"))
            uri = path.as_uri()
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
            for where in headers(text):
                try:
                    _, result = server.request(
                        "textDocument/hover",
                        {"textDocument": {"uri": uri}, "position": where},
                    )
                except (RuntimeError, queue.Empty):
                    continue
                if not result:
                    continue
                value = result["contents"]["value"]
                count = len(value.rstrip("\n").split("\n"))
                lengths.append(count)
                if count > longest[0]:
                    longest = (count, f"{path}:{where['line'] + 1}", value)
            server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    finally:
        server.proc.kill()
        server.proc.wait()
    return {
        "server": str(root),
        "files": len(files),
        "hovers": len(lengths),
        "median lines": statistics.median(lengths) if lengths else 0,
        "largest lines": max(lengths, default=0),
        "p90 lines": sorted(lengths)[int(0.9 * (len(lengths) - 1))] if lengths else 0,
        "largest at": longest[1],
        "largest hover": longest[2],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--server-root", type=Path, default=ROOT)
    parser.add_argument("--max-files", type=int, default=120, help="0: every file")
    args = parser.parse_args(argv)
    figures = measure(args.server_root, sample(args.folder, args.max_files))
    for key, value in figures.items():
        if key != "largest hover":
            print(f"{key}: {value}")
    out = ROOT / "benchmarks" / "out" / "hover_length.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
