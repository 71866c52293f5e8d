"""`float` totals reduced when the user (or the build) accepts reassociation.

Off by default (`test_narrow_sums.py`): a single-precision total's low digits
follow the grouping. `reassociateFloat` / `--reassociate-float`, or a build
that already lets the compiler reorder sums (`-ffast-math`,
`-fassociative-math`), accepts that, and the loop's facts say so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.frontend import Preprocessor, header_context
from accls.project import BuildFlags, build_context
from accls.project.compile_db import compile_entry

_TEXT = """
#define N 6144
float fa[N];
static float h[4];
float total(void) {
  float s = 0;
  for (int i = 0; i < N; i++) s += fa[i];
  return s;
}
void bins(void) {
  for (int i = 0; i < N; i++) h[i & 3] += fa[i] * 0.37f;
}
float pair(void) {
  float s[2] = {0.0f, 0.0f};
  for (int i = 0; i < N; i++) s[1] += fa[i];
  return s[0] + s[1];
}
"""

_SERVER = Path(__file__).resolve().parents[2] / "server"


def _facts(options: AnalysisOptions, context=None):  # type: ignore[no-untyped-def]
    analysis = analyze_text(_TEXT, options=options, context=context)
    return {f.loop.function: f for f in analysis.facts}


def test_by_default_every_float_total_is_refused() -> None:
    facts = _facts(AnalysisOptions(dialect="omp"))
    assert not any(f.parallel for f in facts.values())
    refusal = next(o for o in facts["total"].obstacles if o.code.value == "rounding")
    assert "--reassociate-float" in refusal.message  # the way out is named


def test_the_setting_reduces_them_and_states_the_assumption() -> None:
    facts = _facts(AnalysisOptions(dialect="omp", reassociate_float=True))
    total = facts["total"]
    assert total.parallel, [o.message for o in total.obstacles]
    assert any(
        "`float` total `s`" in a and "reassociate-float" in a for a in total.assumptions
    )
    assert facts["bins"].parallel  # an atomic update of a float histogram
    assert facts["pair"].array_reductions  # a float array total


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize(
    ("flags", "reduced"),
    [
        (("-ffast-math",), True),
        (("-Ofast",), True),
        (("-fassociative-math", "-fno-signed-zeros", "-fno-trapping-math"), True),
        (("-ffast-math", "-fno-fast-math"), False),
        ((), False),
    ],
)
def test_a_build_that_reorders_sums_reduces_them(
    flags: tuple[str, ...], reduced: bool
) -> None:
    context = header_context(_TEXT, None, Preprocessor(cc="gcc", flags=flags))
    total = _facts(AnalysisOptions(dialect="omp"), context)["total"]
    assert total.parallel is reduced
    if reduced:
        assert any("the build's -ffast-math" in a for a in total.assumptions)


def test_the_compile_database_passes_the_math_flags_on(tmp_path: Path) -> None:
    source = tmp_path / "k.c"
    source.write_text(_TEXT, encoding="utf-8")
    command = ["cc", "-O2", "-ffast-math", "-DN2=3", "-Wall", "-c", "k.c"]
    database = tmp_path / "compile_commands.json"
    entry = {"directory": str(tmp_path), "file": "k.c", "arguments": command}
    database.write_text(json.dumps([entry]), encoding="utf-8")
    found = compile_entry(str(database), str(source))
    assert found is not None
    assert found.math == ("-ffast-math",)
    assert "-ffast-math" in found.preprocessor_flags()
    assert "-Wall" not in found.preprocessor_flags()


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_fast_math_database_reaches_the_analysis(tmp_path: Path) -> None:
    source = tmp_path / "k.c"
    source.write_text(_TEXT, encoding="utf-8")
    database = tmp_path / "compile_commands.json"
    entry = {
        "directory": str(tmp_path),
        "file": "k.c",
        "arguments": ["gcc", "-O2", "-ffast-math", "-c", "k.c"],
    }
    database.write_text(json.dumps([entry]), encoding="utf-8")
    context, _ = build_context(_TEXT, str(source), BuildFlags(database=str(database)))
    total = _facts(AnalysisOptions(dialect="omp"), context)["total"]
    assert total.parallel


def _suggest(path: Path, *flags: str) -> str:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "accls", "suggest", "--model", "openmp"),
            *flags,
            *("--no-validate", str(path)),
        ],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(_SERVER), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_cli_flag(tmp_path: Path) -> None:
    source = tmp_path / "k.c"
    source.write_text(_TEXT, encoding="utf-8")
    assert "reduction(+:s)" not in _suggest(source, "--no-preprocess")
    reduced = _suggest(source, "--no-preprocess", "--reassociate-float")
    assert "reduction(+:s)" in reduced
