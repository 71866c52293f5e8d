"""One blind batch of race programs: each program's verdict and racing pair.

A batch folder holds whole programs with `/* race: yes|no */` and
`/* pair: L1 L2 */` headers. A racy program passes when one error-level race
finding names both lines of its pair (its own line or a line-valued argument); a
race-free program when no error-level race finding is reported.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from accls.analysis.checks import check_file
from accls.analysis.findings import CATALOG, Category, Finding, Severity

_RACE = re.compile(r"/\*\s*race:\s*(yes|no)\s*\*/")
_PAIR = re.compile(r"/\*\s*pair:\s*(\d+)\s+(\d+)\s*\*/")
_ERRORS = frozenset(
    k.code
    for k in CATALOG
    if k.category is Category.RACE and k.severity is Severity.ERROR
)


def programs(batch: Path) -> list[str]:
    """The batch's program names, sorted."""
    return sorted(p.name for p in batch.glob("*.c"))


def program_params(batch: Path, missed: dict[str, str]) -> list[Any]:
    """One test parameter a program; those the model still misses are strict xfails."""
    return [
        pytest.param(n, marks=pytest.mark.xfail(reason=missed[n], strict=True))
        if n in missed
        else n
        for n in programs(batch)
    ]


def _lines(found: Finding) -> set[int]:
    lines = {found.span.line}
    lines |= {
        int(v) for k, v in found.args if k not in ("line", "region") and v.isdigit()
    }
    return lines


def assert_verdict(batch: Path, name: str) -> None:
    """Fail unless the checker's errors on `name` match its headers."""
    path = batch / name
    text = path.read_text(encoding="utf-8")
    race = _RACE.search(text)
    assert race is not None, "every program has a race header"
    errors = [
        f
        for f in check_file(text, str(path), [str(batch)])
        if f.code in _ERRORS and f.level is Severity.ERROR
    ]
    if race.group(1) == "no":
        assert errors == [], [f.message for f in errors]
        return
    pair = _PAIR.search(text)
    assert pair is not None, "a racy program names its pair"
    want = {int(pair.group(1)), int(pair.group(2))}
    assert any(want <= _lines(f) for f in errors), [f.message for f in errors]
