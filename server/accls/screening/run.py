"""Screen many files, on a pool of processes, into one report."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed

from accls.analysis import ProgramSummaries
from accls.screening.model import FileScreen, Report
from accls.screening.reasons import reason_counts
from accls.screening.screen import ScreenConfig, screen_file

__all__ = ["Programs", "Progress", "screen_paths"]

Progress = Callable[[int, int, str], None]
"""Told (files done, files in all, the file just done) after each file."""
Programs = Callable[[str], ProgramSummaries]
"""What the other files of a file's project define."""


def _report(
    inputs: Sequence[str], files: list[FileScreen], config: ScreenConfig, start: float
) -> Report:
    total: Counter[str] = Counter()
    for screen in files:
        total.update(dict(screen.reasons))
    return Report(
        inputs=tuple(inputs),
        files=tuple(files),
        validated=config.validate,
        seconds=time.monotonic() - start,
        reason_counts=reason_counts(total.elements()),
    )


def screen_paths(
    inputs: Sequence[str],
    files: Sequence[str],
    config: ScreenConfig,
    *,
    jobs: int = 2,
    progress: Progress | None = None,
    skipped: Sequence[FileScreen] = (),
    programs: Programs | None = None,
) -> Report:
    """The report of `files` (found from `inputs`), `jobs` processes at a time.

    `skipped`: inputs already known not to be screened; they are listed too.
    `programs`: for a file, what the other files of its project define.
    """

    def program(path: str) -> ProgramSummaries | None:
        return None if programs is None else programs(path)

    start = time.monotonic()
    done: dict[str, FileScreen] = {}

    def finished(screen: FileScreen) -> None:
        done[screen.file] = screen
        if progress is not None:
            progress(len(done), len(files), screen.file)

    if jobs <= 1 or len(files) <= 1:
        for path in files:
            finished(screen_file(path, config, program(path)))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [
                pool.submit(screen_file, path, config, program(path)) for path in files
            ]
            for future in as_completed(futures):
                finished(future.result())
    ordered = [*skipped, *(done[p] for p in files)]
    return _report(inputs, ordered, config, start)
