"""`accls-train mine` on two tiny fake repositories under tests/fixtures/mine."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import accls_train.mine
import pytest
from accls_train.dataset import Pair, insert_pragma, read_pairs
from accls_train.mine import main
from support.gcc import syntax_check

Need = Callable[[str], str]

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "mine"


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Pair]]:
    out = tmp_path_factory.mktemp("mine") / "mined.jsonl"
    assert main([str(FIXTURE), "--out", str(out)]) == 0
    return out, read_pairs(out)


def by_id(pairs: list[Pair]) -> dict[str, Pair]:
    return {p.id: p for p in pairs}


def test_pairs_and_duplicates(mined: tuple[Path, list[Pair]]) -> None:
    _, pairs = mined
    # clip_again is an exact copy of clip, clip_renamed the same loop renamed.
    assert sorted(by_id(pairs)) == [
        "alice/stencils:src/smooth.c:17",
        "alice/stencils:src/smooth.c:27",
        "bob/solvers:jacobi.c:10",
        "bob/solvers:jacobi.c:22",
    ]


def test_fields_of_a_mined_pair(mined: tuple[Path, list[Pair]]) -> None:
    pairs = by_id(mined[1])
    smooth = pairs["alice/stencils:src/smooth.c:17"]
    assert smooth.pragma == "#pragma acc parallel loop gang vector"
    assert smooth.region == "#pragma acc data copyin(in[0:n]) copyout(out[0:n])"
    assert (smooth.model, smooth.target, smooth.origin) == ("openacc", "gpu", "mined")
    assert smooth.loop.startswith("for (int i = 1; i < n - 1; i++) {")
    jacobi = pairs["bob/solvers:jacobi.c:10"]
    assert (jacobi.model, jacobi.target) == ("openmp", "cpu")
    assert jacobi.region is None  # `omp parallel` is a compute region, not data
    assert pairs["bob/solvers:jacobi.c:22"].target == "gpu"


def test_unit_holds_what_the_function_needs_and_no_more(
    mined: tuple[Path, list[Pair]],
) -> None:
    smooth = by_id(mined[1])["alice/stencils:src/smooth.c:17"]
    mcu = smooth.mcu
    # From the header reached through include/: the macro and typedef it uses.
    assert "#define NX 512" in mcu
    assert "typedef double real_t;" in mcu
    assert "#define ALPHA 0.25" in mcu
    assert "static real_t weights[NX];" in mcu
    for unused in ("UNUSED_MACRO", "unused_shape", "unused_counter", "helper_unused"):
        assert unused not in mcu
    assert "#include <grid.h>" not in mcu  # expanded in place
    # The pair's own pragma is gone; the enclosing data region stays.
    assert "parallel loop" not in mcu
    assert "#pragma acc data" in mcu
    assert mcu.splitlines()[smooth.line - 1].lstrip().startswith("for (int i = 1")
    # A function it calls becomes a prototype.
    clip = by_id(mined[1])["alice/stencils:src/smooth.c:27"]
    assert "static inline real_t clamp01(real_t v);" in clip.mcu


def test_every_unit_compiles_with_its_pragma(
    mined: tuple[Path, list[Pair]], tmp_path: Path, need: Need
) -> None:
    gcc = need("gcc")
    assert len(mined[1]) == 4  # the four distinct loops of the fixture
    for pair in mined[1]:
        text = insert_pragma(pair.mcu, pair.line, pair.pragma)
        flag = "-fopenacc" if pair.model == "openacc" else "-fopenmp"
        result = syntax_check(gcc, text, flag, tmp_path)
        assert result.returncode == 0, (pair.id, result.stderr)


def test_split_is_by_repository(mined: tuple[Path, list[Pair]]) -> None:
    splits: dict[str, set[str]] = {}
    for pair in mined[1]:
        splits.setdefault(pair.repo, set()).add(pair.split)
    assert sorted(len(s) for s in splits.values()) == [1, 1]
    assert {s for ss in splits.values() for s in ss} == {"train", "test"}


def test_rerun_resumes_from_checkpoints(
    mined: tuple[Path, list[Pair]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out, pairs = mined
    state = out.with_name(out.name + ".state")
    assert len(list(state.glob("*.json"))) == 3  # one per source file

    def refuse(*_args: object) -> None:
        raise AssertionError("a checkpointed file was mined again")

    monkeypatch.setattr(accls_train.mine, "mine_file", refuse)
    again = out.with_name("again.jsonl")
    (out.parent / "again.jsonl.state").symlink_to(state)
    assert main([str(FIXTURE), "--out", str(again)]) == 0
    assert read_pairs(again) == pairs


def test_test_repositories_can_be_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "named.jsonl"
    assert main([str(FIXTURE), "--out", str(out), "--test-repos", "bob/solvers"]) == 0
    summary = capsys.readouterr().out
    assert "3 files, 8 loops, 6 pairs, dropped 1 exact + 1 near duplicates" in summary
    assert {p.repo for p in read_pairs(out, split="test")} == {"bob/solvers"}
    assert main([str(FIXTURE), "--out", str(out), "--test-repos", "eve/none"]) == 2


def test_a_git_checkout_names_its_repository(tmp_path: Path) -> None:
    checkout = tmp_path / "src" / "kernels"
    (checkout / ".git").mkdir(parents=True)
    (checkout / "lib").mkdir()
    (checkout / "lib" / "scale.c").write_text(
        "void scale(int n, double *x)\n{\n"
        "  #pragma omp parallel for\n"
        "  for (int i = 0; i < n; i++)\n    x[i] *= 2;\n}\n"
    )
    out = tmp_path / "pairs.jsonl"
    assert main([str(tmp_path / "src"), "--out", str(out)]) == 0
    (pair,) = read_pairs(out)
    assert (pair.repo, pair.path, pair.id) == (
        "kernels",
        "lib/scale.c",
        "kernels:lib/scale.c:3",
    )
