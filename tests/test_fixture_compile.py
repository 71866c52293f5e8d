"""Every fixture, model and target: suggestions are well formed, honour the
fixture's `/* accls: ... */` markers, and the annotated file compiles with gcc
-fopenacc or -fopenmp, with no directive gcc ignores as unknown.

A marker comment applies to the next line holding a `for` loop:
`/* accls: refuse */` means no parallelising pragma for that loop in any
model or target; `/* accls: parallel */` means a pragma in every one of them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

Need = Callable[[str], str]
Suggest = Callable[[Path, str, str], subprocess.CompletedProcess[str]]
Annotate = Callable[[Path, str, str], tuple[subprocess.CompletedProcess[str], Path]]

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "c"
COMPILE_TIMEOUT_S = 60.0
COMBINATIONS = [
    ("openacc", "cpu"),
    ("openacc", "gpu"),
    ("openmp", "cpu"),
    ("openmp", "gpu"),
]
FLAGS = {"openacc": "-fopenacc", "openmp": "-fopenmp"}
DIALECTS = {"openacc": "acc", "openmp": "omp"}
REQUIRED_KEYS = {
    "file": str,
    "line": int,
    "column": int,
    "model": str,
    "parallelizable": bool,
    "reasons": list,
    "validation": dict,
    "source": str,
}

_MARKER = re.compile(r"/\*\s*accls:\s*(refuse|parallel)\s*\*/")
_FOR = re.compile(r"\bfor\s*\(")
_PARENS = re.compile(r"\([^()]*\)")
# Directive words that distribute loop iterations; `acc data` or `omp target
# data` above a refused loop moves data but runs it serially, so it is allowed.
_WORKSHARING = {"parallel", "kernels", "loop", "for", "simd", "distribute", "taskloop"}


def _marked_fixtures() -> list[str]:
    return sorted(
        p.name for p in FIXTURE_DIR.glob("*.c") if _MARKER.search(p.read_text("utf-8"))
    )


def loop_markers(text: str) -> dict[int, str]:
    """Map the 1-based line of each marked `for` to its verdict."""
    markers: dict[int, str] = {}
    pending: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if pending is not None and _FOR.search(line):
            markers[number] = pending
            pending = None
        if match := _MARKER.search(line):
            pending = match.group(1)
    assert pending is None, "marker with no `for` loop after it"
    return markers


def test_loop_markers_apply_to_next_for_line() -> None:
    text = "/* accls: refuse */\nint x;\nfor (;;)\n/* accls: parallel */\nfor (;;)\n"
    assert loop_markers(text) == {3: "refuse", 5: "parallel"}


def parallelises(pragma: str) -> bool:
    """Whether a pragma's directive (clauses aside) shares loop iterations."""
    text = pragma
    while (stripped := _PARENS.sub(" ", text)) != text:
        text = stripped
    words = set(text.replace("#", " ").split())
    # `acc loop seq` keeps a refused loop sequential inside a compute region.
    return "seq" not in words and bool(_WORKSHARING & words)


def test_parallelises_ignores_clauses() -> None:
    assert parallelises("#pragma omp parallel for reduction(+:s)")
    assert parallelises("acc loop gang")
    assert not parallelises("#pragma acc data copyin(a[0:n]) copy(loop)")
    assert not parallelises("omp target data map(tofrom: A[0:n])")
    assert not parallelises("#pragma acc loop seq")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What `accls annotate` and gcc said about one fixture, model and target."""

    annotate: subprocess.CompletedProcess[str]
    annotated: Path
    compiles: tuple[subprocess.CompletedProcess[str], ...]


def _compile(
    gcc: str, path: Path, model: str, *defines: str
) -> subprocess.CompletedProcess[str]:
    # A full compile, not -fsyntax-only: gcc checks directive nesting (say, an
    # `acc parallel loop` inside `acc parallel`) only when it lowers the code.
    cmd = [gcc, "-c", "-o", os.devnull, "-std=gnu11", "-Wunknown-pragmas"]
    cmd.append(f"-I{FIXTURE_DIR}")  # the fixtures' own headers
    return subprocess.run(
        [*cmd, FLAGS[model], *defines, str(path)],
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT_S,
        env={**os.environ, "LC_ALL": "C"},
        check=False,
    )


def _collect(
    gcc: str,
    src: Path,
    model: str,
    target: str,
    annotate: Annotate,
) -> Outcome:
    annotated, out = annotate(src, model, target)
    compiles: list[subprocess.CompletedProcess[str]] = []
    if annotated.returncode == 0 and out.is_file():
        compiles.append(_compile(gcc, out, model))
        if "USE_FAST" in src.read_text(encoding="utf-8"):
            compiles.append(_compile(gcc, out, model, "-DUSE_FAST"))
    return Outcome(annotated, out, tuple(compiles))


@pytest.fixture(scope="module")
def outcomes(
    need: Need,
    pool: ThreadPoolExecutor,
    selected_params: list[dict[str, object]],
    fixtures_dir: Path,
    accls_annotate: Annotate,
) -> dict[tuple[str, str, str], Future[Outcome]]:
    """Start annotate and gcc for every selected case; tests await them."""
    gcc = need("gcc")
    started: dict[tuple[str, str, str], Future[Outcome]] = {}
    for params in selected_params:
        key = (str(params["c_fixture"]), str(params["model"]), str(params["target"]))
        if key not in started:
            started[key] = pool.submit(
                _collect,
                gcc,
                fixtures_dir / key[0],
                key[1],
                key[2],
                accls_annotate,
            )
    return started


def _loops(proc: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    assert proc.returncode == 0, f"accls suggest failed:\n{proc.stderr}"
    loops = json.loads(proc.stdout)
    assert isinstance(loops, list), "suggest --format json must print a JSON array"
    return loops


@pytest.mark.parametrize(("model", "target"), COMBINATIONS)
def test_suggestions_are_well_formed(
    c_fixture: str,
    model: str,
    target: str,
    fixtures_dir: Path,
    accls_suggest: Suggest,
    c_source: Callable[[str], str],
) -> None:
    loops = _loops(accls_suggest(fixtures_dir / c_fixture, model, target))
    lines = c_source(c_fixture).splitlines()
    assert loops, "every fixture has loops, so suggest must report some"
    for loop in loops:
        for key, kind in REQUIRED_KEYS.items():
            assert isinstance(loop.get(key), kind), f"{key} missing or not {kind}"
        assert loop["pragma"] is None or isinstance(loop["pragma"], str)
        assert loop["model"] == model
        line = loop["line"]
        assert isinstance(line, int)
        assert 1 <= line <= len(lines), f"line {line} outside the file"
        assert _FOR.search(lines[line - 1]), f"line {line} holds no for loop"
        if loop["pragma"] is not None:
            assert loop["parallelizable"] is True or not parallelises(
                str(loop["pragma"])
            ), f"line {line}: work-sharing pragma on a loop marked not parallelizable"


@pytest.mark.parametrize(("model", "target"), COMBINATIONS)
@pytest.mark.parametrize(
    "c_fixture", _marked_fixtures(), ids=lambda name: Path(name).stem
)
def test_suggestions_honour_fixture_markers(
    c_fixture: str,
    model: str,
    target: str,
    fixtures_dir: Path,
    accls_suggest: Suggest,
    c_source: Callable[[str], str],
) -> None:
    markers = loop_markers(c_source(c_fixture))
    loops = _loops(accls_suggest(fixtures_dir / c_fixture, model, target))
    for line, verdict in sorted(markers.items()):
        at_line = [loop for loop in loops if loop.get("line") == line]
        pragmas = [loop.get("pragma") for loop in at_line]
        if verdict == "refuse":
            # A loop the tool did not report at all got no pragma either.
            for loop in at_line:
                assert loop.get("parallelizable") is False, f"line {line}: {pragmas}"
                pragma = loop.get("pragma")
                assert pragma is None or not parallelises(str(pragma)), (
                    f"line {line} must be refused, got {pragma!r}"
                )
        else:
            assert any(
                loop.get("parallelizable") is True and loop.get("pragma")
                for loop in at_line
            ), f"line {line} is parallel, got {pragmas or 'no report'}"


@pytest.mark.parametrize(("model", "target"), COMBINATIONS)
def test_annotated_file_compiles(
    c_fixture: str,
    model: str,
    target: str,
    outcomes: dict[tuple[str, str, str], Future[Outcome]],
) -> None:
    outcome = outcomes[c_fixture, model, target].result()
    proc = outcome.annotate
    assert proc.returncode == 0, f"accls annotate failed:\n{proc.stderr}"
    assert outcome.annotated.is_file(), "accls annotate -o wrote no file"
    for compiled in outcome.compiles:
        command = " ".join(compiled.args)
        assert compiled.returncode == 0, f"{command}:\n{compiled.stderr}"
        ignored = f"ignoring '#pragma {DIALECTS[model]}"
        assert ignored not in compiled.stderr, (
            f"{command}: gcc does not know a suggested directive:\n{compiled.stderr}"
        )
