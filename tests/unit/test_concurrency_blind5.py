"""The fifth blind batch: every program's verdict, and the racing pair of the racy ones.

tests/fixtures/races_blind5 holds whole programs with `/* race: yes|no */` and
`/* pair: L1 L2 */` headers. A racy program passes when one error-level race
finding names both lines of its pair (its own line or a line-valued argument); a
race-free program when no error-level race finding is reported. Programs the model
still misses are strict xfails: fixing one makes its test fail until it is removed
from `_MISSED`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from accls.analysis.checks import check_file
from accls.analysis.findings import CATALOG, Category, Finding, Severity

BATCH = Path(__file__).resolve().parents[1] / "fixtures" / "races_blind5"
_RACE = re.compile(r"/\*\s*race:\s*(yes|no)\s*\*/")
_PAIR = re.compile(r"/\*\s*pair:\s*(\d+)\s+(\d+)\s*\*/")
_ERRORS = frozenset(
    k.code
    for k in CATALOG
    if k.category is Category.RACE and k.severity is Severity.ERROR
)
_MISSED: dict[str, str] = {}
_PROGRAMS = sorted(p.name for p in BATCH.glob("*.c"))


def _lines(found: Finding) -> set[int]:
    lines = {found.span.line}
    lines |= {
        int(v) for k, v in found.args if k not in ("line", "region") and v.isdigit()
    }
    return lines


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason=_MISSED[n], strict=True))
        if n in _MISSED
        else n
        for n in _PROGRAMS
    ],
)
def test_blind5_program(name: str) -> None:
    path = BATCH / name
    text = path.read_text(encoding="utf-8")
    race = _RACE.search(text)
    assert race is not None, "every program has a race header"
    errors = [
        f
        for f in check_file(text, str(path), [str(BATCH)])
        if f.code in _ERRORS and f.level is Severity.ERROR
    ]
    if race.group(1) == "no":
        assert errors == [], [f.message for f in errors]
        return
    pair = _PAIR.search(text)
    assert pair is not None, "a racy program names its pair"
    want = {int(pair.group(1)), int(pair.group(2))}
    assert any(want <= _lines(f) for f in errors), [f.message for f in errors]


def test_batch_is_balanced() -> None:
    racy = [n for n in _PROGRAMS if n.startswith("r")]
    assert len(_PROGRAMS) == 40
    assert len(racy) == 20
