"""Shared test fixtures: the C kernels, tool requirements, and the accls CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Generic, NoReturn, TypeVar

import pytest
from support.cli import ROOT, run_accls

FIXTURES = ROOT / "tests" / "fixtures" / "c"

# Cost-model weights fitted on this machine (models/perf/, `make perf-model`) would
# change verdicts and goldens: tests use the constants unless they set their own.
os.environ.setdefault("ACCLS_PERF_WEIGHTS", "none")

# Aliases for the callables the fixtures below return; test modules repeat them
# rather than import this file (conftest is not meant to be imported).
Need = Callable[[str], str]
Suggest = Callable[[Path, str, str], subprocess.CompletedProcess[str]]
Annotate = Callable[[Path, str, str], tuple[subprocess.CompletedProcess[str], Path]]

K = TypeVar("K")
V = TypeVar("V")


def fixture_names() -> list[str]:
    """File names of every C fixture, sorted."""
    return sorted(p.name for p in FIXTURES.glob("*.c"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/expected/*.json from the current output",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # Any test that takes `c_fixture` runs once per kernel in tests/fixtures/c,
    # unless it parametrises the name itself.
    if "c_fixture" not in metafunc.fixturenames:
        return
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0]
        listed = names.split(",") if isinstance(names, str) else list(names)
        if "c_fixture" in (n.strip() for n in listed):
            return
    names = fixture_names()
    metafunc.parametrize("c_fixture", names, ids=[Path(n).stem for n in names])


@pytest.fixture(scope="session")
def update_golden(pytestconfig: pytest.Config) -> bool:
    """Whether golden tests should rewrite their expected files."""
    return bool(pytestconfig.getoption("--update-golden"))


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """The directory holding the C fixtures."""
    return FIXTURES


@pytest.fixture(scope="session")
def c_source() -> Callable[[str], str]:
    """Return a function mapping a fixture name (with or without .c) to its text."""

    def read(name: str) -> str:
        file = name if name.endswith(".c") else f"{name}.c"
        return (FIXTURES / file).read_text(encoding="utf-8")

    return read


def require_tool(tool: str) -> str:
    """Return the path of `tool`; skip the test if missing, or fail under CI."""
    path = shutil.which(tool)
    if path is not None:
        return path
    _missing(f"{tool} not found on PATH")


def _missing(message: str) -> NoReturn:
    """Skip the test, or fail it under CI, for want of something the machine lacks."""
    if os.environ.get("ACCLS_REQUIRE_ALL") == "1":
        pytest.fail(f"{message} (ACCLS_REQUIRE_ALL=1)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def sandbox() -> None:
    """Skip (fail under CI) where `verify` has no working sandbox (bubblewrap)."""
    from accls.validation.isolation import find_isolation

    isolation = find_isolation()
    if not isolation.available:
        _missing(f"no sandbox for verify: {isolation.reason}")


@pytest.fixture(scope="session")
def need() -> Need:
    """Return `require_tool`, so a test can write `gcc = need("gcc")`."""
    return require_tool


@pytest.fixture(scope="session")
def pool() -> Iterator[ThreadPoolExecutor]:
    """A session-wide worker pool for slow subprocess work (compiles, CLI runs)."""
    executor = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2))
    yield executor
    executor.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def selected_params(request: pytest.FixtureRequest) -> list[dict[str, object]]:
    """Parameters of the selected tests in the requesting module, to prefetch work."""
    return [
        dict(item.callspec.params)
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and item.path == request.path
        and hasattr(item, "callspec")
    ]


class _Once(Generic[K, V]):
    """Compute each key once, even when several threads ask for it at a time."""

    def __init__(self, compute: Callable[[K], V]) -> None:
        self._compute = compute
        self._lock = threading.Lock()
        self._futures: dict[K, Future[V]] = {}

    def __call__(self, key: K) -> V:
        with self._lock:
            future = self._futures.get(key)
            owner = future is None
            if future is None:
                future = self._futures[key] = Future()
        if owner:
            try:
                future.set_result(self._compute(key))
            except BaseException as exc:  # every caller re-raises it below
                future.set_exception(exc)
        return future.result()


def _suggest_args(model: str, target: str, *files: Path) -> list[str]:
    return ["suggest", "--model", model, "--target", target, "--format", "json"] + [
        str(f) for f in files
    ]


def _split_batch(
    batch: subprocess.CompletedProcess[str], files: list[Path]
) -> dict[Path, subprocess.CompletedProcess[str]] | None:
    """Split one multi-file JSON run into per-file results; None if it failed."""
    if batch.returncode != 0:
        return None
    try:
        loops = json.loads(batch.stdout)
    except json.JSONDecodeError:
        return None
    if not isinstance(loops, list):
        return None
    per_file: dict[Path, list[object]] = {f: [] for f in files}
    for loop in loops:
        file = Path(str(loop.get("file", ""))) if isinstance(loop, dict) else None
        if file not in per_file:
            return None
        per_file[file].append(loop)
    return {
        f: subprocess.CompletedProcess(
            batch.args, 0, json.dumps(found, indent=2), batch.stderr
        )
        for f, found in per_file.items()
    }


@pytest.fixture(scope="session")
def accls_suggest() -> Suggest:
    """Return `suggest(src, model, target)`: the CLI's JSON output for one file.

    The first request for a model and target runs the CLI once over every
    fixture (Python start-up dominates a run); if that run fails, each file is
    run on its own so a failure points at its fixture.
    """
    fixtures = [FIXTURES / name for name in fixture_names()]
    batches = _Once[
        tuple[str, str], dict[Path, subprocess.CompletedProcess[str]] | None
    ](lambda key: _split_batch(run_accls(*_suggest_args(*key, *fixtures)), fixtures))
    single = _Once[tuple[Path, str, str], subprocess.CompletedProcess[str]](
        lambda key: run_accls(*_suggest_args(key[1], key[2], key[0]))
    )

    def suggest(src: Path, model: str, target: str) -> subprocess.CompletedProcess[str]:
        split = batches((model, target)) if src in fixtures else None
        if split is not None:
            return split[src]
        return single((src, model, target))

    return suggest


@pytest.fixture(scope="session")
def accls_annotate(tmp_path_factory: pytest.TempPathFactory) -> Annotate:
    """Return `annotate(src, model, target) -> (process, output path)`, memoised."""
    outdir = tmp_path_factory.mktemp("annotated")

    def annotate(
        key: tuple[Path, str, str],
    ) -> tuple[subprocess.CompletedProcess[str], Path]:
        src, model, target = key
        out = outdir / f"{src.stem}.{model}.{target}.c"
        proc = run_accls(
            "annotate",
            "--all",
            "--model",
            model,
            "--target",
            target,
            str(src),
            "-o",
            str(out),
        )
        return proc, out

    once = _Once[tuple[Path, str, str], tuple[subprocess.CompletedProcess[str], Path]](
        annotate
    )
    return lambda src, model, target: once((src, model, target))
