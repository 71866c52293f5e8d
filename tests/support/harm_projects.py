"""Scoring of a multi-file harm blind batch (folders of `.c` files), file by file.

Each file is annotated as `accls annotate --all --project FOLDER` would,
unvalidated (validation only withdraws), and its markers (see harm_markers)
are read back from the annotated text.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import pytest
from accls.cli import main

from support.harm_markers import markers, parallelised_rows

__all__ = ["expert_parallelised", "expert_params", "project_files", "trap_hits"]


def project_files(batch: Path) -> list[str]:
    """`folder/file.c` of every program file of the batch."""
    return sorted(
        f"{p.parent.name}/{p.name}" for p in batch.glob("*/*.c") if p.parent.is_dir()
    )


@cache
def _annotated(root: Path) -> dict[str, str]:
    """Each `.c` file of the folder as annotated with `--project` (text by name)."""
    out = Path(tempfile.mkdtemp(prefix=f"harm-{root.parent.name}-"))
    texts: dict[str, str] = {}
    for src in sorted(root.glob("*.c")):
        argv = ["annotate", "--all", "--no-validate", "--model", "openmp"]
        argv += ["--project", str(root), "--index-cache", str(out / "cache")]
        argv += [str(src), "-o", str(out / src.name)]
        with contextlib.redirect_stderr(io.StringIO()):
            assert main(argv) == 0
        texts[src.name] = (out / src.name).read_text(encoding="utf-8")
    return texts


def _marked(batch: Path, key: str) -> list[tuple[int, str, str, bool]]:
    """(original row, kind, reason, parallelised) of each marker of one file."""
    folder, name = key.split("/")
    original = markers((batch / key).read_text(encoding="utf-8"))
    text = _annotated(batch / folder)[name]
    shared = parallelised_rows(text)
    done = markers(text)
    assert len(done) == len(original)
    return [
        (m.row, m.kind, m.reason, d.row in shared)
        for m, d in zip(original, done, strict=True)
    ]


def trap_hits(batch: Path, key: str) -> list[str]:
    """The trap loops of one file that the annotation shares out."""
    return [
        f"line {row + 1}: {why}"
        for row, kind, why, on in _marked(batch, key)
        if on and kind == "trap"
    ]


def expert_parallelised(batch: Path, key: str, row: int) -> bool:
    """Whether the expert loop at `row` of one file got a pragma."""
    return any(
        r == row and on for r, kind, _, on in _marked(batch, key) if kind == "expert"
    )


def expert_params(batch: Path, missed: Mapping[str, str]) -> list[object]:
    """One pytest param per expert loop (read as written: collection runs no
    accls); the missed ones are strict xfails with their reason.
    """
    params: list[object] = []
    for key in project_files(batch):
        for m in markers((batch / key).read_text(encoding="utf-8")):
            if m.kind != "expert":
                continue
            ident = f"{key}:{m.row + 1}"
            why = missed.get(ident)
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            params.append(pytest.param(key, m.row, id=ident, marks=marks))
    return params
