"""Obstacle codes: one StrEnum, every member produced, the wire values unchanged."""

from __future__ import annotations

import json
import re
from pathlib import Path

from accls.analysis import ObstacleCode, analyze_text

ANALYSIS = Path(__file__).resolve().parents[2] / "server" / "accls" / "analysis"


def test_every_member_is_produced_and_no_producer_spells_a_string() -> None:
    used: set[str] = set()
    for module in sorted(ANALYSIS.glob("*.py")):
        text = module.read_text(encoding="utf-8")
        assert not re.search(r"\bcode=\"", text), f"{module.name} spells a code"
        used.update(re.findall(r"code=ObstacleCode\.([A-Z_]+)", text))
    assert used == {member.name for member in ObstacleCode}


def test_codes_compare_and_serialise_as_their_strings() -> None:
    text = "void f(int n, double *x, double *y) {\n"
    text += "  for (int i = 0; i < n; i++) x[i] = y[i] * 2;\n}\n"
    (facts,) = analyze_text(text).facts
    (obstacle,) = facts.obstacles
    assert obstacle.code == "alias"
    assert obstacle.code is ObstacleCode.ALIAS
    assert json.dumps({"code": obstacle.code}) == '{"code": "alias"}'
    assert f"{obstacle.code}" == "alias"
