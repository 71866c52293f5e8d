"""Run the oracle over seeds in worker processes (each imports accls once)."""

from __future__ import annotations

import multiprocessing
import tempfile
from collections.abc import Iterable, Iterator
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
) -> Iterator[tuple[int, Outcome]]:
    """(seed, outcome) for every seed, in order, using `jobs` processes."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        todo = list(seeds)
        each = len(todo)
        results = pool.map(
            check_seed, todo, [tools] * each, [races] * each, [skip] * each
        )
        yield from zip(todo, results, strict=True)
