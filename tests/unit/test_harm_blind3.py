"""The third harm blind batch: no pragma on a trap loop, one on every expert loop.

tests/fixtures/harm_blind3 holds mini-app kernels whose loops are marked
`/* expert: parallel */` or `/* trap: REASON */` (see its README). The
suggester runs in process, unvalidated (validation only withdraws, so a trap
loop left alone here is left alone by `accls annotate` too). Expert loops still
missed are strict xfails keyed by `file:line`, with the reason accls gives.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect, Suggestion
from support.harm_markers import markers

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "harm_blind3"
_PROGRAMS = sorted(p.name for p in BATCH.glob("*.c"))
_MISSED: dict[str, str] = {
    "k03_smith_waterman.c:43": (
        "the wavefront's column `d - i` stays in [1, LB] only through the bounds "
        "`lo`/`hi` set by conditional expressions, which are not modelled"
    ),
    "k04_fft_butterfly.c:47": (
        "butterfly groups `k += len` own `[k, k + len)` only because "
        "`half = len >> 1`: the relation of two scalars of the stage is not known"
    ),
    "k06_sptrsv.c:65": (
        "rows of one level come from the permutation `order`: data the program "
        "does not show to hold no repeats"
    ),
    "k10_neighbor_list.c:67": (
        "`visit(i, &nlist[noff[i]])` fills rows of a prefix-summed offset table: "
        "the subscripts are data"
    ),
    "k11_bitonic.c:20": (
        "`partner = i ^ j` with `partner > i`: an exclusive-or pairing the "
        "dependence test does not model"
    ),
    "k11_bitonic.c:30": (
        "`i + 1 < N` is not OpenMP's canonical test `i < ub`; an expert rewrites "
        "it as `i < N - 1`"
    ),
    "k12_redblack_gs.c:10": (
        "the colour's start `1 + (i + colour) % 2` with step 2: rows of one "
        "colour read only the other colour, a parity the test does not model"
    ),
}


@cache
def _parallel_rows(name: str) -> frozenset[int]:
    path = BATCH / name
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(path.read_text(encoding="utf-8"), str(path), settings)
    by_id = {s.loop.id: s for s in found.suggestions}
    rows: set[int] = set()
    for s in found.suggestions:
        if _shared(s, by_id):
            rows.add(s.loop.span.start[0])
            rows.update(_folded(s))
    return frozenset(rows)


def _folded(s: Suggestion) -> list[int]:
    """Rows of the inner loops a `collapse(n)` folds in (they have no suggestion)."""
    depth = re.search(r"\bcollapse\((\d+)\)", s.pragma.render() if s.pragma else "")
    loop, out = s.loop, []
    for _ in range(int(depth.group(1)) - 1 if depth else 0):
        if len(loop.children) != 1:
            break
        loop = loop.children[0]
        out.append(loop.span.start[0])
    return out


def _shared(s: Suggestion, by_id: dict[int, Suggestion]) -> bool:
    """The loop's iterations are shared out: its own pragma, or folded by collapse."""
    if s.pragma is not None and s.withdrawn is None:
        return True
    into = by_id.get(s.collapsed_into) if s.collapsed_into is not None else None
    return into is not None and _shared(into, by_id)


@pytest.mark.parametrize("name", _PROGRAMS)
def test_no_pragma_on_a_trap_loop(name: str) -> None:
    rows = _parallel_rows(name)
    text = (BATCH / name).read_text(encoding="utf-8")
    hit = [
        f"line {m.row + 1}: {m.reason}"
        for m in markers(text)
        if m.kind == "trap" and m.row in rows
    ]
    assert not hit


def _expert_params() -> list[object]:
    params: list[object] = []
    for name in _PROGRAMS:
        text = (BATCH / name).read_text(encoding="utf-8")
        for m in markers(text):
            if m.kind != "expert":
                continue
            key = f"{name}:{m.row + 1}"
            why = _MISSED.get(key)
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            params.append(pytest.param(name, m.row, id=key, marks=marks))
    return params


@pytest.mark.parametrize(("name", "row"), _expert_params())
def test_expert_loop_gets_a_pragma(name: str, row: int) -> None:
    assert row in _parallel_rows(name)
