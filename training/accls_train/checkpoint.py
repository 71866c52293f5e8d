"""Per-item checkpoints of a stage: a header line, then one JSON record per item."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["load_checkpoint"]


def load_checkpoint(path: Path, header: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of a checkpoint file, if it was written with the same `header`.

    A run with other options (another header) or no file gives none. A last line
    cut short by an interruption ends the list: the work resumes from there.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    try:
        if not lines or json.loads(lines[0]) != header:
            return []
    except json.JSONDecodeError:
        return []
    records: list[dict[str, Any]] = []
    for line in lines[1:]:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return records
