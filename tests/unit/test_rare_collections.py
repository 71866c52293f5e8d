from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from accls.project import ProjectIndex
from accls.project.rare_collections import rare_collections


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    yield before
    gc.set_threshold(*before)


def test_the_threshold_is_raised_inside_and_restored_after(
    thresholds: tuple[int, int, int],
) -> None:
    gc.set_threshold(700, 10, 10)
    with rare_collections():
        young, middle, old = gc.get_threshold()
        assert young > 700
        assert (middle, old) == (10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_overlapping_builds_restore_the_first_thresholds(
    thresholds: tuple[int, int, int],
) -> None:
    gc.set_threshold(700, 10, 10)
    outer = rare_collections()
    outer.__enter__()
    inner_done = threading.Event()

    def inner() -> None:
        with rare_collections():
            pass
        inner_done.set()

    worker = threading.Thread(target=inner)
    worker.start()
    worker.join()
    assert inner_done.is_set()
    assert gc.get_threshold()[0] > 700  # the outer build still runs
    outer.__exit__(None, None, None)
    assert gc.get_threshold() == (700, 10, 10)


def test_collection_turned_off_stays_off(thresholds: tuple[int, int, int]) -> None:
    gc.set_threshold(0, 10, 10)
    with rare_collections():
        assert gc.get_threshold()[0] == 0
    assert gc.get_threshold() == (0, 10, 10)


def test_an_error_inside_restores_the_thresholds(
    thresholds: tuple[int, int, int],
) -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(RuntimeError), rare_collections():
        raise RuntimeError("a bug")
    assert gc.get_threshold() == (700, 10, 10)


def test_an_index_build_leaves_the_thresholds_as_they_were(
    thresholds: tuple[int, int, int], tmp_path: Path
) -> None:
    (tmp_path / "a.c").write_text("void fill(double *a) { a[0] = 1.0; }\n")
    gc.set_threshold(700, 10, 10)
    index = ProjectIndex(str(tmp_path))
    index.build()
    index.update(str(tmp_path / "a.c"), "void fill(double *a) { a[1] = 2.0; }\n")
    assert gc.get_threshold() == (700, 10, 10)
    assert index.program_for(None).lookup("fill")
