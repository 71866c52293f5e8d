"""The screening report in a browser: headless Chromium loads it, shows the table."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "c"
FILES = ("gauss_seidel.c", "saxpy_alias.c", "histogram.c", "impure_call.c")
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars")


class _Page(HTMLParser):
    """What the rendered DOM holds: the loop table's rows, headers and figures."""

    def __init__(self) -> None:
        super().__init__()
        self.rows = 0
        self.headers: list[str] = []
        self.svgs = 0
        self._in_loops = self._in_body = self._in_th = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "table":
            self._in_loops = attr.get("id") == "loops"
        elif tag == "tbody" and self._in_loops:
            self._in_body = True
        elif tag == "tr" and self._in_body and attr.get("class") != "more":
            self.rows += 1
        elif tag == "th" and self._in_loops:
            self._in_th = True
        elif tag == "svg":
            self.svgs += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_loops = self._in_body = False
        elif tag == "th":
            self._in_th = False

    def handle_data(self, data: str) -> None:
        if self._in_th:
            self.headers.append(data.strip())


def _report(tmp_path: Path, fmt: str) -> Path:
    out = tmp_path / f"report.{fmt}"
    subprocess.run(
        [sys.executable, "-m", "accls", "report", "--no-preprocess", "--format", fmt]
        + [str(FIXTURES / f) for f in FILES]
        + ["-o", str(out)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out


def test_chromium_loads_the_report_and_shows_the_table(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    chromium = need("chromium")
    page = _report(tmp_path, "html")
    data = json.loads(_report(tmp_path, "json").read_text(encoding="utf-8"))
    dom = subprocess.run(
        [chromium, *_FLAGS, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    parsed = _Page()
    parsed.feed(dom)
    assert parsed.rows == len(data["loops"]) > 0
    assert parsed.headers[:5] == [
        "File",
        "Function",
        "Line",
        "Verdict",
        "Decisive reason",
    ]
    # The chart and one graph per refused nest with dependences.
    assert parsed.svgs == 1 + len(data["graphs"])
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            chromium,
            *_FLAGS,
            "--window-size=1200,900",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
        cwd=tmp_path,
    )
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1200, 900)
    assert len(png) > 20_000  # a page with text and colour, not a blank one
