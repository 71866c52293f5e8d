"""Fine-tuning a tiny from-scratch model: the loss falls, and a resumed run matches."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from accls_train.config import ConfigError, load_config, parse_config  # noqa: E402
from accls_train.dataset import Pair, write_pairs  # noqa: E402
from accls_train.finetune import FinetuneError, finetune, main  # noqa: E402

KERNELS = [
    (
        "void add(int n, double *a, const double *b) {\n"
        "  for (int i = 0; i < n; i++) {\n"
        "    a[i] += b[i];\n"
        "  }\n"
        "}\n",
        "#pragma omp parallel for",
        "#pragma acc parallel loop copy(a[0:n]) copyin(b[0:n])",
    ),
    (
        "double sum(int n, const double *x) {\n"
        "  double s = 0.0;\n"
        "  for (int i = 0; i < n; i++) {\n"
        "    s += x[i];\n"
        "  }\n"
        "  return s;\n"
        "}\n",
        "#pragma omp parallel for reduction(+:s)",
        "#pragma acc parallel loop reduction(+:s) copyin(x[0:n])",
    ),
    (
        "void scale(int m, float *v, float k) {\n"
        "  for (int j = 0; j < m; j++) {\n"
        "    v[j] = k * v[j];\n"
        "  }\n"
        "}\n",
        "#pragma omp parallel for simd",
        "#pragma acc parallel loop copy(v[0:m])",
    ),
]


def tiny_pairs() -> list[Pair]:
    pairs = []
    for index, (mcu, omp, acc) in enumerate(KERNELS):
        line = next(n for n, text in enumerate(mcu.splitlines(), 1) if "for (" in text)
        for model, target, pragma in (("openmp", "cpu", omp), ("openacc", "gpu", acc)):
            pairs.append(
                Pair(
                    id=f"k{index}-{model}",
                    repo="tests",
                    path=f"k{index}.c",
                    line=line,
                    model=model,
                    target=target,
                    pragma=pragma,
                    loop="",
                    mcu=mcu,
                    origin="synthesized:test",
                )
            )
    return pairs


CONFIG = """
name = "test-tiny"
[model]
base = ""
layers = 2
hidden = 64
heads = 2
intermediate = 128
context = 256
vocab_size = 400
[lora]
enabled = false
[training]
batch_size = 6
micro_batch_size = 3
learning_rate = 1e-2
warmup_steps = 2
max_seq_length = 256
max_steps = 16
checkpoint_every = 8
log_every = 4
[syntax]
weight = 0.3
every = 4
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    file = tmp_path / "tiny.toml"
    file.write_text(CONFIG, encoding="utf-8")
    return file


def test_loss_decreases_and_the_syntax_term_is_logged(
    tmp_path: Path, config_file: Path
) -> None:
    run = finetune(
        load_config(config_file), tiny_pairs(), [], tmp_path / "run", progress=False
    )
    ces = run.loop.ces
    assert len(ces) == 16
    assert sum(ces[-4:]) / 4 < 0.5 * ces[0]
    records = [
        json.loads(line)
        for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    ]
    checked = [r for r in records if "noncompiling" in r]
    assert [r["step"] for r in checked] == [1, 5, 9, 13]
    # A random model's first pragmas do not compile, so the term weighs the loss.
    assert checked[0]["noncompiling"] > 0
    assert checked[0]["loss"] > checked[0]["ce"]
    assert (run.final / "model.safetensors").is_file()
    assert (run.final / "tokenizer.json").is_file()


def test_resume_from_a_checkpoint_matches_an_uninterrupted_run(
    tmp_path: Path, config_file: Path
) -> None:
    config = load_config(config_file)
    whole = finetune(config, tiny_pairs(), [], tmp_path / "whole", progress=False)
    # Interrupted after step 8: a run folder holding only that checkpoint.
    cut = tmp_path / "cut"
    shutil.copytree(whole.out / "tokenizer", cut / "tokenizer")
    shutil.copytree(
        whole.out / "checkpoints" / "step-000008", cut / "checkpoints" / "step-000008"
    )
    with pytest.raises(FinetuneError, match="--resume"):
        finetune(config, tiny_pairs(), [], cut, progress=False)
    resumed = finetune(config, tiny_pairs(), [], cut, resume=True, progress=False)
    assert resumed.loop.steps == 8
    assert resumed.loop.ces == pytest.approx(whole.loop.ces[8:], rel=1e-4)
    from safetensors.torch import load_file

    a = load_file(str(whole.final / "model.safetensors"))
    b = load_file(str(resumed.final / "model.safetensors"))
    assert a.keys() == b.keys()
    for key in a:
        assert torch.allclose(a[key], b[key], atol=1e-5), key


def test_bad_configs_give_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown key 'rank'"):
        parse_config({"lora": {"rank": 8}})
    with pytest.raises(ConfigError, match="learning_rate must be a number"):
        parse_config({"training": {"learning_rate": "fast"}})
    with pytest.raises(ConfigError, match="micro_batch_size"):
        parse_config({"training": {"batch_size": 4, "micro_batch_size": 8}})
    seed = load_config(Path(__file__).parents[2] / "training/configs/seed.toml")
    assert (seed.lora.r, seed.lora.alpha, seed.lora.dropout) == (64, 16, 0.1)
    assert seed.lora.targets == ("q_proj", "k_proj", "v_proj")
    assert seed.training.batch_size == 128
    assert seed.training.learning_rate == pytest.approx(3e-5)
    assert seed.training.max_seq_length == 2048
    assert seed.syntax.weight == pytest.approx(0.3)


def test_cli_reports_bad_input_in_one_line(
    tmp_path: Path, config_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "pairs.jsonl"
    write_pairs(data, [p for p in tiny_pairs() if p.split == "valid"])
    code = main(
        [
            "--config",
            str(config_file),
            "--data",
            str(data),
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err == "accls-train finetune: error: no training pairs"
    bad = tmp_path / "bad.toml"
    bad.write_text("name = 3\n", encoding="utf-8")
    assert main(["--config", str(bad), "--data", str(data)]) == 2
    assert "name must be a string" in capsys.readouterr().err
