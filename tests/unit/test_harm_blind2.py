"""The second harm blind batch: multi-file programs, scored file by file.

tests/fixtures/harm_blind2 holds programs of a few `.c` files and a header each,
their loops marked `/* expert: parallel */` or `/* trap: REASON */` (see its
README). Each file is annotated as `accls annotate --all --project FOLDER`
would, unvalidated (validation only withdraws): no pragma on a trap loop, one
on every expert loop. Expert loops still missed are strict xfails keyed by
`folder/file:line`, with the reason accls gives.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from functools import cache
from pathlib import Path

import pytest
from accls.cli import main
from support.harm_markers import markers, parallelised_rows

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind2"
_FILES = sorted(
    f"{p.parent.name}/{p.name}" for p in BATCH.glob("*/*.c") if p.parent.is_dir()
)
_MISSED: dict[str, str] = {
    "p02_row_views/main.c:20": (
        "`row_mean(b[i], ..)` reads through rows of a table `make_rows` (rows.c) "
        "fills with `base + i * stride`: where the rows point is not followed "
        "across the call, so they may point into `means`, which the loop writes"
    ),
    "p03_slot_pool/main.c:17": (
        "`part[k]` are rows of a global table that `parts_init` (pool.c) fills "
        "with `calloc`: row stores of another file's function are not followed"
    ),
    "p07_param_calls/ops.c:15": (
        "every call of the program passes `copy_to_store` another array than "
        "the global `store` it writes, but the proof reads only this file's calls"
    ),
    "p08_global_views/main.c:12": (
        "`fresh_a` and `fresh_b` are global pointers each set once from `malloc` "
        "in grid.c: the global links record names they are set from, not blocks"
    ),
    "p09_row_tables/main.c:14": (
        "`own_rows` (table.c) returns a table whose every row is `calloc`ed: the "
        "wrapper is known to return a fresh table, not that its rows are fresh"
    ),
    "p09_row_tables/main.c:18": (
        "`pair_mean(own[i])` reads through rows of that table: not proved apart "
        "from `out` for the same reason"
    ),
}


@cache
def _annotated(folder: str) -> dict[str, str]:
    """Each `.c` file of the folder as annotated with `--project` (text by name)."""
    root = BATCH / folder
    out = Path(tempfile.mkdtemp(prefix="harm-blind2-"))
    texts: dict[str, str] = {}
    for src in sorted(root.glob("*.c")):
        argv = ["annotate", "--all", "--no-validate", "--model", "openmp"]
        argv += ["--project", str(root), "--index-cache", str(out / "cache")]
        argv += [str(src), "-o", str(out / src.name)]
        with contextlib.redirect_stderr(io.StringIO()):
            assert main(argv) == 0
        texts[src.name] = (out / src.name).read_text(encoding="utf-8")
    return texts


def _marked(key: str) -> list[tuple[int, str, str, bool]]:
    """(original row, kind, reason, parallelised) of each marker of one file."""
    folder, name = key.split("/")
    original = markers((BATCH / key).read_text(encoding="utf-8"))
    text = _annotated(folder)[name]
    shared = parallelised_rows(text)
    done = markers(text)
    assert len(done) == len(original)
    return [
        (m.row, m.kind, m.reason, d.row in shared)
        for m, d in zip(original, done, strict=True)
    ]


@pytest.mark.parametrize("key", _FILES)
def test_no_pragma_on_a_trap_loop(key: str) -> None:
    hit = [
        f"line {row + 1}: {why}"
        for row, kind, why, on in _marked(key)
        if on and kind == "trap"
    ]
    assert not hit


def _expert_params() -> list[object]:
    params: list[object] = []
    for key in _FILES:
        for row, kind, _, _ in _marked_rows(key):
            if kind != "expert":
                continue
            ident = f"{key}:{row + 1}"
            why = _MISSED.get(ident)
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            params.append(pytest.param(key, row, id=ident, marks=marks))
    return params


def _marked_rows(key: str) -> list[tuple[int, str, str, None]]:
    """The markers of one file as written (collection must not run accls)."""
    text = (BATCH / key).read_text(encoding="utf-8")
    return [(m.row, m.kind, m.reason, None) for m in markers(text)]


@pytest.mark.parametrize(("key", "row"), _expert_params())
def test_expert_loop_gets_a_pragma(key: str, row: int) -> None:
    assert any(r == row and on for r, kind, _, on in _marked(key) if kind == "expert")
