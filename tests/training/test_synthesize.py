"""`accls-train synthesize`: template loops labelled by the analysis, validated."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from accls_train.dataset import Pair, insert_pragma, read_pairs
from accls_train.synthesize import Tally, label_kernel, main, synthesize
from accls_train.templates import TEMPLATES, Names
from accls_train.validate import Validator
from support.gcc import syntax_check

Need = Callable[[str], str]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Pair], Tally]:
    cache = tmp_path_factory.mktemp("cc")
    # Two rounds over the templates: OpenACC GPU, then OpenMP CPU.
    return synthesize(2 * len(TEMPLATES), 7, Validator(cache_dir=str(cache)))


def test_every_template_writes_parseable_c_for_every_target() -> None:
    rng = random.Random(1)
    for name, template in TEMPLATES.items():
        kernel = template(rng, Names(rng))
        assert kernel.template == name
        assert "for (" in kernel.code


def test_serial_loops_are_never_labelled(made: tuple[list[Pair], Tally]) -> None:
    pairs, tally = made
    assert tally.serial_labelled == 0
    assert tally.serial_refused == 2  # `prefix`, once per round
    assert not [p for p in pairs if p.origin == "synthesized:prefix"]


def test_kept_pairs_are_well_formed(made: tuple[list[Pair], Tally]) -> None:
    pairs, tally = made
    assert len(pairs) >= 15
    assert tally.labelled >= len(pairs)
    for pair in pairs:
        sentinel = "acc" if pair.model == "openacc" else "omp"
        assert pair.pragma.startswith(f"#pragma {sentinel} ")
        assert pair.mcu.splitlines()[pair.line - 1].lstrip().startswith("for")
        assert pair.origin.startswith("synthesized:")
        assert pair.split == "train"
    assert {p.model for p in pairs} == {"openacc", "openmp"}


def test_reductions_are_labelled_as_reductions(made: tuple[list[Pair], Tally]) -> None:
    dots = [p for p in made[0] if p.origin == "synthesized:dot"]
    assert dots
    assert all("reduction(+:" in p.pragma for p in dots)


def test_kept_pairs_compile(
    made: tuple[list[Pair], Tally], tmp_path: Path, need: Need
) -> None:
    gcc = need("gcc")
    assert made[0]
    for pair in made[0]:
        text = insert_pragma(pair.mcu, pair.line, pair.pragma)
        flag = "-fopenacc" if pair.model == "openacc" else "-fopenmp"
        result = syntax_check(gcc, text, flag, tmp_path)
        assert result.returncode == 0, (pair.id, result.stderr)


def test_histogram_keeps_its_atomic_in_the_unit() -> None:
    rng = random.Random(0)
    kernel = TEMPLATES["histogram"](rng, Names(rng))
    (pair,) = label_kernel(kernel, "openmp", "cpu", 0)
    assert "#pragma omp atomic" in pair.mcu
    assert pair.mcu.splitlines()[pair.line - 1].lstrip().startswith("for")


def test_cli_is_deterministic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--count", "16", "--seed", "3", "--cache-dir", str(tmp_path / "cc")]
    assert main([*args, "--out", str(tmp_path / "a.jsonl")]) == 0
    assert main([*args, "--out", str(tmp_path / "b.jsonl")]) == 0
    assert read_pairs(tmp_path / "a.jsonl") == read_pairs(tmp_path / "b.jsonl")
    assert "made 16 units from 16 templates" in capsys.readouterr().out
    assert main(["--count", "0"]) == 2
