"""Run the oracle over seeds in worker processes (each imports accls once)."""

from __future__ import annotations

import multiprocessing
import tempfile
from collections.abc import Generator, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from differential.generate import generate
from differential.oracle import Outcome, Tools, check

__all__ = ["check_seed", "run_seeds"]


def check_seed(
    seed: int, tools: Tools, races: bool = True, skip: tuple[str, ...] = ()
) -> Outcome:
    """Generate the program for `seed` and run the oracle on it."""
    with tempfile.TemporaryDirectory(prefix="accls-diff-") as tmp:
        return check(generate(seed, skip=skip).text(), Path(tmp), tools, races=races)


def run_seeds(
    seeds: Iterable[int],
    tools: Tools,
    jobs: int,
    races: bool = True,
    skip: tuple[str, ...] = (),
) -> Generator[tuple[int, Outcome], None, None]:
    """(seed, outcome) for every seed, in order, using `jobs` processes."""
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    try:
        todo = list(seeds)
        each = len(todo)
        results = pool.map(
            check_seed, todo, [tools] * each, [races] * each, [skip] * each
        )
        yield from zip(todo, results, strict=True)
    finally:
        # A caller that stops early (Ctrl-C) must not wait for the queued seeds.
        pool.shutdown(wait=True, cancel_futures=True)
