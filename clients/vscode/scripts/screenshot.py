"""Render the README screenshots from the real server's hover and code actions.

Starts `python -m accls --stdio`, opens a C file, asks for the hover and the code
actions at a loop, draws them the way VS Code does (Dark+ colours) as HTML, and
has headless Chromium photograph it:

    .venv/bin/python clients/vscode/scripts/screenshot.py
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[3]
IMAGES = ROOT / "clients" / "vscode" / "images"
DEFAULT_SOURCE = ROOT / "tests" / "fixtures" / "c" / "saxpy_restrict.c"
LINE_PX = 19


class Lsp:
    """A minimal JSON-RPC client over the server's stdin/stdout."""

    def __init__(self, cmd: list[str]) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT / "server"), env.get("PYTHONPATH", "")) if p
        )
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        self.next_id = 0

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stdin: IO[bytes] | None = self.proc.stdin
        assert stdin is not None
        stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        stdin.flush()

    def _read(self) -> dict[str, Any]:
        stdout: IO[bytes] | None = self.proc.stdout
        assert stdout is not None
        length = 0
        while (line := stdout.readline().strip()) != b"":
            if not line and self.proc.poll() is not None:
                raise RuntimeError("the server exited")
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        message: dict[str, Any] = json.loads(stdout.read(length))
        return message

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification."""
        self._send({"method": method, "params": params})

    def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request and wait for its answer, replying null to server requests."""
        self.next_id += 1
        my_id = self.next_id
        self._send({"id": my_id, "method": method, "params": params})
        while True:
            message = self._read()
            if message.get("id") == my_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result")
            if "method" in message and "id" in message:
                self._send({"id": message["id"], "result": None})

    def close(self) -> None:
        """Shut the server down."""
        self.request("shutdown", None)
        self.notify("exit", {})
        self.proc.wait(timeout=10)


def query(source: Path, line: int, column: int) -> tuple[str, list[str]]:
    """The hover Markdown and code action titles at (line, column), 0-based."""
    lsp = Lsp([sys.executable, "-m", "accls", "--stdio"])
    uri = source.resolve().as_uri()
    caps = {
        "textDocument": {
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "codeAction": {
                "codeActionLiteralSupport": {
                    "codeActionKind": {"valueSet": ["quickfix", "refactor"]}
                },
                "resolveSupport": {"properties": ["edit"]},
            },
        }
    }
    try:
        lsp.request(
            "initialize",
            {"processId": os.getpid(), "rootUri": None, "capabilities": caps},
        )
        lsp.notify("initialized", {})
        text = source.read_text(encoding="utf-8")
        lsp.notify(
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
        where = {"line": line, "character": column}
        doc = {"uri": uri}
        hover = lsp.request(
            "textDocument/hover", {"textDocument": doc, "position": where}
        )
        actions = lsp.request(
            "textDocument/codeAction",
            {
                "textDocument": doc,
                "range": {"start": where, "end": where},
                "context": {"diagnostics": []},
            },
        )
    finally:
        lsp.close()
    contents = (hover or {}).get("contents", {})
    markdown = contents.get("value", "") if isinstance(contents, dict) else ""
    return markdown, [a["title"] for a in actions or []]


_TOKEN = re.compile(
    r"(?P<comment>/\*.*?\*/|//[^\n]*)|(?P<string>\"(?:\\.|[^\"\\])*\")"
    r"|(?P<pre>^\s*#\s*\w+)|(?P<kw>\b(?:for|if|else|while|return|static|const|"
    r"restrict|void|int|float|double|char|long|unsigned)\b)"
    r"|(?P<num>\b\d+(?:\.\d+)?f?\b)|(?P<call>\b\w+(?=\())",
    re.MULTILINE,
)


def highlight(line: str) -> str:
    """One C line as HTML spans in Dark+ colours."""
    out, last = [], 0
    for m in _TOKEN.finditer(line):
        out.append(html.escape(line[last : m.start()]))
        out.append(f'<span class="{m.lastgroup}">{html.escape(m.group())}</span>')
        last = m.end()
    out.append(html.escape(line[last:]))
    return "".join(out)


STYLE = """
body { margin: 0; background: #1e1e1e; font-family: 'DejaVu Sans', sans-serif; }
.editor { position: relative; padding: 10px 0; font: 14px/19px 'DejaVu Sans Mono',
  monospace; color: #d4d4d4; }
.row { display: flex; height: 19px; white-space: pre; }
.row.cursor { background: #282828; }
.num { width: 48px; padding-right: 18px; text-align: right; color: #858585; }
.comment { color: #6a9955; } .string { color: #ce9178; } .pre { color: #c586c0; }
.kw { color: #569cd6; } .num-lit, .num-t { color: #b5cea8; } .call { color: #dcdcaa; }
span.num { width: auto; padding: 0; color: #b5cea8; text-align: left; }
.widget { position: absolute; background: #252526; border: 1px solid #454545;
  box-shadow: 0 2px 8px rgba(0,0,0,.6); color: #cccccc;
  font: 13px/1.45 'DejaVu Sans', sans-serif; }
.hover { padding: 4px 10px; max-width: 820px; }
.hover p { margin: 6px 0; } .hover ul { margin: 2px 0 6px; padding-left: 20px; }
.hover code { font-family: 'DejaVu Sans Mono', monospace; font-size: 12.5px;
  color: #d7ba7d; background: rgba(255,255,255,.06); padding: 0 3px; }
.menu { padding: 4px 0; min-width: 560px; }
.item { padding: 2px 14px 2px 30px; white-space: nowrap;
  font-family: 'DejaVu Sans Mono', monospace; font-size: 12.5px; }
.item.selected { background: #04395e; outline: 1px solid #007fd4; }
"""


def page(lines: list[str], first: int, cursor: int, widget: str) -> str:
    """The editor lines from `first` with a widget below the `cursor` line."""
    rows = "".join(
        f'<div class="row{" cursor" if n == cursor else ""}">'
        f'<div class="num">{n + 1}</div><div>{highlight(text)}</div></div>'
        for n, text in enumerate(lines[first:], first)
    )
    top = 10 + (cursor - first + 1) * LINE_PX
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><style>{STYLE}</style>"
        f"</head><body><div class='editor'>{rows}"
        f"<div class='widget' style='top:{top}px;left:86px'>{widget}</div>"
        "</div></body></html>"
    )


# Run in the page: record how far the content reaches, so the shot fits it.
MEASURE = """<script>addEventListener('load', () => {
  let w = 0, h = 0;
  for (const e of document.querySelectorAll('.editor *')) {
    const r = e.getBoundingClientRect();
    w = Math.max(w, r.right); h = Math.max(h, r.bottom);
  }
  document.body.dataset.size = Math.ceil(w + 12) + 'x' + Math.ceil(h + 12);
});</script>"""


def _chromium(chromium: str, tmp: Path, page_path: Path, *extra: str) -> str:
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={tmp / 'profile'}",
            *extra,
            page_path.as_uri(),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout


def shoot(chromium: str, markup: str, out: Path, width: int) -> None:
    """Render `markup` to a PNG with headless Chromium, cropped to its content."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        page_path = tmp / "page.html"
        page_path.write_text(markup.replace("</body>", MEASURE + "</body>"), "utf-8")
        dom = _chromium(
            chromium, tmp, page_path, f"--window-size={width},3000", "--dump-dom"
        )
        found = re.search(r'data-size="(\d+)x(\d+)"', dom)
        if found is None:
            raise RuntimeError("chromium did not report the page size")
        size = f"{max(width, int(found[1]))},{found[2]}"
        _chromium(
            chromium, tmp, page_path, f"--screenshot={out}", f"--window-size={size}"
        )


def main(argv: list[str] | None = None) -> int:
    """Write images/hover.png and images/code-action.png."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--function", default="saxpy", help="first loop in it")
    parser.add_argument("--out", type=Path, default=IMAGES)
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print(
            "screenshot: chromium not found (apt-get install chromium)", file=sys.stderr
        )
        return 2
    lines = args.source.read_text(encoding="utf-8").splitlines()
    start = next(i for i, t in enumerate(lines) if f"{args.function}(" in t)
    loop = next(i for i in range(start, len(lines)) if lines[i].strip()[:4] == "for ")
    markdown, titles = query(args.source, loop, lines[loop].index("for"))
    if not markdown or not titles:
        print(
            "screenshot: the server gave no hover or no code actions", file=sys.stderr
        )
        return 1
    first = max(0, start - 1)
    hover = MarkdownIt("commonmark").render(markdown)
    args.out.mkdir(parents=True, exist_ok=True)
    widget = f"<div class='hover'>{hover}</div>"
    shoot(
        chromium,
        page(lines[: loop + 3], first, loop, widget),
        args.out / "hover.png",
        760,
    )
    items = "".join(
        f"<div class='item{' selected' if i == 0 else ''}'>{html.escape(t)}</div>"
        for i, t in enumerate(titles)
    )
    menu = f"<div class='menu'>{items}</div>"
    shown = lines[: loop + len(titles) + 3]
    shoot(chromium, page(shown, first, loop, menu), args.out / "code-action.png", 760)
    print(f"screenshot: wrote {args.out / 'hover.png'} and code-action.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
