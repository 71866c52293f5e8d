"""Golden snapshots: analysis facts and suggestions for every C fixture.

`pytest --update-golden` rewrites tests/golden/expected/<fixture>.json; review the diff
the way you would review a ruff snapshot change.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, analyze
from accls.frontend import SourceFile, parse_source
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

EXPECTED = Path(__file__).parent / "expected"
COMBOS = [
    (Dialect.OPENACC, Target.GPU),
    (Dialect.OPENMP, Target.CPU),
    (Dialect.OPENMP, Target.GPU),
]


def _facts(facts: LoopFacts) -> dict[str, Any]:
    return {
        "line": facts.loop.line,
        "var": facts.loop.var,
        "parallel": facts.parallel,
        "obstacles": sorted(f"{o.code}:{o.line}:{o.variable}" for o in facts.obstacles),
        "scalars": sorted(
            f"{s.name}:{s.cls.value}" + (f":{s.op.value}" if s.op else "")
            for s in facts.scalars
        ),
        "carried": sorted(
            f"{d.kind.value}:{d.array}:{d.source.line}->{d.sink.line}:"
            + ",".join(d.direction)
            for d in facts.dependences
        ),
    }


def snapshot(source: SourceFile) -> dict[str, Any]:
    """Everything the golden file records for one fixture."""
    out: dict[str, Any] = {"facts": [_facts(f) for f in analyze(source).facts]}
    for model, target in COMBOS:
        key = f"{model.value}-{target.value}"
        analysis = analyze(source, AnalysisOptions(dialect=model.sentinel))
        out[key] = [
            {
                "line": s.loop.line,
                "pragma": s.pragma.render() if s.pragma else None,
                "atomic": [a.span.line for a in s.atomics],
                "region": s.region.pragma.render() if s.region else None,
                **(
                    {"routines": [f"{r.line}:{r.pragma.render()}" for r in s.routines]}
                    if s.routines
                    else {}
                ),
            }
            for s in suggest_file(
                analysis, SuggestOptions(dialect=model, target=target)
            )
        ]
    return out


def test_golden(
    c_fixture: str, c_source: Any, fixtures_dir: Path, update_golden: bool
) -> None:
    name = Path(c_fixture).stem
    text = c_source(c_fixture)
    source = parse_source(text, str(fixtures_dir / c_fixture))
    got = json.dumps(snapshot(source), indent=2, sort_keys=True) + "\n"
    expected = EXPECTED / f"{name}.json"
    if update_golden or not expected.exists():
        if not update_golden:
            pytest.fail(f"no golden file for {name}; run pytest --update-golden")
        EXPECTED.mkdir(exist_ok=True)
        expected.write_text(got, encoding="utf-8")
        return
    assert got == expected.read_text(encoding="utf-8")
