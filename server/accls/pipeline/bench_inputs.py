"""What `accls bench` says about programs it cannot time as they are.

A program that reads standard input, needs arguments, never ends or writes files
gets a clear line: what bench saw, and which option gives the program what it needs.
"""

from __future__ import annotations

import re

from accls.validation.session import RunRecord
from accls.validation.verify_settings import VerifySettings

__all__ = ["failure_hint", "files_note", "input_notes"]

_READS_STDIN = re.compile(
    r"\b(scanf|getchar|gets|getline)\s*\(|\bstdin\b|\bread\s*\(\s*(0|STDIN_FILENO)\s*,"
)
_READS_ARGV = re.compile(r"\bargv\s*\[\s*[1-9]|\bargc\s*[<>!=]=?\s*[1-9]")
_SHOWN_FILES = 4


def input_notes(text: str, verify: VerifySettings) -> list[str]:
    """Notes on the inputs the source reads that bench does not give it."""
    notes: list[str] = []
    if verify.stdin_path is None and _READS_STDIN.search(text):
        notes.append(
            "the program reads standard input; bench gives it /dev/null "
            "(give it input with --stdin FILE)"
        )
    if not verify.args and _READS_ARGV.search(text):
        notes.append(
            "the program reads command-line arguments; none were given "
            "(put them after `--`: accls bench FILE -- ARGS)"
        )
    return notes


def failure_hint(last: RunRecord, verify: VerifySettings) -> str:
    """Why the serial run could not be timed, and what would let it run."""
    stdin = verify.stdin_path or "/dev/null"
    tail = (
        f"; it said: {last.stderr_tail.splitlines()[-1][:200]}"
        if last.stderr_tail
        else ""
    )
    if last.limit is not None and last.limit.startswith("wall-clock"):
        return (
            f"it did not end within {verify.timeout_s:g} s (stopped by the "
            f"{last.limit}): a program that never ends, or waits for input (its "
            f"stdin is {stdin}), cannot be timed; give it input (--stdin FILE, "
            "arguments after `--`) or a longer --timeout"
        )
    if last.limit is not None and last.limit.startswith("CPU"):
        return (
            f"it used more than {verify.cpu_s:g} s of CPU (stopped by the "
            f"{last.limit}): give it a smaller input "
            "or a larger --cpu-seconds"
        )
    if last.limit is not None:
        return f"it hit the {last.limit}; give it a smaller input or larger limits"
    if last.signal is not None:
        return f"it crashed ({last.signal}) before bench could time it{tail}"
    return (
        f"it exited with code {last.exit_code}{tail}: does it need arguments "
        f"(after `--`), input (--stdin FILE, now {stdin}) or data files (--data)?"
    )


def files_note(last: RunRecord) -> str:
    """A note on the files a run wrote, or "" when it wrote none."""
    if not last.files:
        return ""
    shown = ", ".join(last.files[:_SHOWN_FILES])
    more = (
        f" and {len(last.files) - _SHOWN_FILES} more"
        if len(last.files) > _SHOWN_FILES
        else ""
    )
    return (
        f"the program writes files ({shown}{more}): each run writes them in its own "
        "sandbox folder, where they are compared with the serial run's and then "
        "deleted; nothing is written beside your file"
    )
