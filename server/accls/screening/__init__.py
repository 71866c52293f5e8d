"""The screening report: every loop of many files, their verdicts and what blocks them.

Above the pipeline, below the command line: `accls report` renders it as one
self-contained HTML page or as JSON.
"""

from accls.screening.html_page import render_html
from accls.screening.model import (
    FORMAT,
    FileScreen,
    LoopRow,
    Report,
    SkippedFile,
    Verdict,
    report_json,
)
from accls.screening.run import Programs, Progress, screen_paths
from accls.screening.screen import ScreenConfig, screen_file, screen_text

__all__ = [
    "FORMAT",
    "FileScreen",
    "LoopRow",
    "Programs",
    "Progress",
    "Report",
    "ScreenConfig",
    "SkippedFile",
    "Verdict",
    "render_html",
    "report_json",
    "screen_file",
    "screen_paths",
    "screen_text",
]
