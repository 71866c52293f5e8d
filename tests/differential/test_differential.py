"""Differential tests: random programs and shrunk reproducers through the oracle.

The batch runs a fixed range of generated programs through the whole oracle
(serial vs OpenMP at 1, 2, 4 threads, OpenACC on the host, TSan + Archer); the
fixtures under tests/fixtures/differential are programs it once caught, shrunk.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.validation.outputs import compare_text

from differential.generate import generate
from differential.oracle import TOLERANCE, Tools, check, find_tools, race_report
from differential.run import run_seeds
from differential.shrink import shrink, well_defined
from differential.tree import Block, Line, Program

Need = Callable[[str], str]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "differential"
BATCH = range(0, 50)


def _tools(need: Need, *, races: bool) -> Tools:
    """gcc, and with `races` clang and Archer: skip without them, fail in CI."""
    need("gcc")
    found = find_tools()
    assert found is not None
    if races:
        need("clang")
        if found.archer is None:
            message = "libarcher.so not found (apt-get install libomp-dev)"
            if os.environ.get("ACCLS_REQUIRE_ALL") == "1":
                pytest.fail(f"{message} (ACCLS_REQUIRE_ALL=1)")
            pytest.skip(message)
    return found


def _race_tools(need: Need) -> Tools | None:
    """The tools for race runs, or None (the caller skips after its gcc checks)."""
    try:
        return _tools(need, races=True)
    except pytest.skip.Exception:
        return None


def test_generator_is_deterministic() -> None:
    assert generate(7).text() == generate(7).text()
    assert generate(7).text() != generate(8).text()


def test_generated_programs_are_well_defined(need: Need, tmp_path: Path) -> None:
    gcc = need("gcc")
    flags = ["-O1", "-Wall", "-Werror", "-fsanitize=address,undefined"]
    flags.append("-fno-sanitize-recover=all")
    for seed in range(4):
        src, exe = tmp_path / f"p{seed}.c", tmp_path / f"p{seed}"
        src.write_text(generate(seed).text(), encoding="utf-8")
        built = subprocess.run(
            [gcc, "-std=gnu11", *flags, str(src), "-o", str(exe), "-lm"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert built.returncode == 0, built.stderr
        ran = subprocess.run([str(exe)], capture_output=True, text=True, check=False)
        assert ran.returncode == 0, ran.stderr


PREFIX_SUM = Program(
    (
        Line("#include <stdio.h>"),
        Line("double a[4000];"),
        Block(
            "int main(void)",
            (
                Line("int i;"),
                Block("for (i = 0; i < 4000; i++)", (Line("a[i] = 1.0;"),)),
                Block("for (i = 1; i < 4000; i++)", (Line("a[i] = a[i - 1] + a[i];"),)),
                Line('printf("%.17g\\n", a[3999]);'),
                Line("return 0;"),
            ),
        ),
    )
)


def _parallelize_everything(src: Path, out: Path, model: str) -> str | None:
    """A wrong annotator: OpenMP `parallel for` on every loop, nothing for OpenACC."""
    text = src.read_text(encoding="utf-8")
    if model == "openmp":
        text = text.replace("    for (", "    #pragma omp parallel for\n    for (")
    out.write_text(text, encoding="utf-8")
    return None


def test_oracle_catches_a_wrong_pragma(need: Need, tmp_path: Path) -> None:
    tools = _tools(need, races=False)
    found = check(
        PREFIX_SUM.text(),
        tmp_path,
        tools,
        races=False,
        annotator=_parallelize_everything,
    )
    assert found.status == "diff", found


def test_oracle_drops_programs_that_do_not_build(need: Need, tmp_path: Path) -> None:
    found = check("int main(void) { return x; }\n", tmp_path, _tools(need, races=False))
    assert found.status == "dropped"


def test_race_report_sees_a_shared_scalar(need: Need, tmp_path: Path) -> None:
    tools = _tools(need, races=True)
    assert tools.clang is not None
    src, exe = tmp_path / "race.c", tmp_path / "race"
    src.write_text(
        "#include <stdio.h>\ndouble a[1000], s;\nint main(void) {\n  int i;\n"
        "  #pragma omp parallel for\n  for (i = 0; i < 1000; i++) s += a[i];\n"
        '  printf("%g\\n", s);\n  return 0;\n}\n',
        encoding="utf-8",
    )
    flags = ["-O1", "-g", "-fopenmp", "-fsanitize=thread", str(src), "-o", str(exe)]
    subprocess.run([tools.clang, *flags], check=True, capture_output=True)
    report = race_report(tools, exe, 2)
    assert report is not None
    assert "ThreadSanitizer: data race" in report, report


def test_shrink_keeps_the_failure_and_drops_the_rest() -> None:
    def failing(p: Program) -> bool:
        return "a[i - 1]" in p.text() and "#include" in p.text()

    small = shrink(PREFIX_SUM, failing).text()
    assert "a[i - 1]" in small
    assert "printf" not in small


def test_shrink_candidates_must_be_well_defined(need: Need, tmp_path: Path) -> None:
    tools = _tools(need, races=False)
    garbage = '#include <stdio.h>\nint main(void) { double s; printf("%g", s); }\n'
    assert not well_defined(garbage, tmp_path, tools)
    no_return = "#include <stdio.h>\nint f(void) { }\nint main(void) { return f(); }\n"
    assert not well_defined(no_return, tmp_path, tools)
    assert well_defined(PREFIX_SUM.text(), tmp_path, tools)


def test_the_oracle_tolerates_rounding_only() -> None:
    assert compare_text("x 1.0\n", "x 1.0000000000001\n", TOLERANCE) is None
    rounded = compare_text("x 1.0\n", "x 1.0001\n", TOLERANCE)
    assert rounded == "line 1: number differs beyond 1e-09: 1.0 vs 1.0001"
    assert (
        compare_text("t 41\n", "t 3\n", TOLERANCE) == "line 1: integer differs: 41 vs 3"
    )


@pytest.mark.parametrize(
    "fixture", sorted(FIXTURES.glob("*.c")), ids=lambda p: Path(p).stem
)
def test_reproducer_now_passes(fixture: Path, need: Need, tmp_path: Path) -> None:
    tools = _race_tools(need) or _tools(need, races=False)
    found = check(fixture.read_text(encoding="utf-8"), tmp_path, tools)
    assert found.status == "pass", found.reason
    if tools.archer is None:
        pytest.skip("outputs match; clang or libarcher.so missing: races not checked")


@pytest.mark.slow
def test_fixed_seed_batch_matches_serial_and_is_race_free(need: Need) -> None:
    tools = _race_tools(need) or _tools(need, races=False)
    races = tools.archer is not None
    jobs = max(2, os.cpu_count() or 2)
    outcomes = list(run_seeds(BATCH, tools, jobs, races))
    bad = [
        f"seed {seed}: {o.status}: {o.reason}"
        for seed, o in outcomes
        if o.status not in ("pass", "dropped")
    ]
    assert not bad, "\n".join(bad)
    assert sum(o.status == "pass" for _, o in outcomes) >= len(BATCH) * 9 // 10
    if not races:
        pytest.skip("outputs match; clang or libarcher.so missing: races not checked")
