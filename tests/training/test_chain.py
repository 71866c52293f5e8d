"""The whole training chain in miniature: mine, augment, synthesize, fine-tune,
reward, evaluate, export, load with the transformers backend, serve through the CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from accls.suggest.backends import make_backend
from accls.suggest.backends.base import BackendKind, BackendSettings
from accls.suggest.backends.constrained import regex_for_prompt
from accls.suggest.backends.regex_dfa import compile_dfa
from accls.suggest.prompt import completion_pragma
from accls_train import (
    augment,
    evaluate,
    export,
    finetune,
    mine,
    synthesize,
)
from accls_train import reward as reward_stage
from accls_train.dataset import read_pairs, write_pairs
from accls_train.examples import prompts_of
from accls_train.scoring import clause_jaccard

Need = Callable[[str], str]
ROOT = Path(__file__).resolve().parents[2]

CONFIG = """
name = "chain-tiny"
[model]
base = ""
layers = 2
hidden = 64
heads = 2
intermediate = 128
context = 512
vocab_size = 512
[lora]
enabled = false
[training]
batch_size = 8
micro_batch_size = 8
learning_rate = 1e-2
warmup_steps = 2
max_seq_length = 512
max_steps = 14
checkpoint_every = 7
log_every = 7
[syntax]
weight = 0.3
every = 7
[reward]
prompts = 4
samples = 2
temperature = 1.0
threshold = 0.0
rounds = 1
steps = 2
"""


def stage(main: Callable[[list[str]], int], *argv: str | Path) -> None:
    code = main([str(a) for a in argv])
    assert code == 0, (main.__module__, argv)


@pytest.mark.slow
def test_the_whole_chain(tmp_path: Path, need: Need) -> None:
    need("gcc")
    config = tmp_path / "chain.toml"
    config.write_text(CONFIG, encoding="utf-8")
    data = tmp_path / "data"
    cache = ("--cache-dir", tmp_path / "cc")

    # Data: mine the fixture repositories, synthesize, augment the union.
    stage(mine.main, ROOT / "tests/fixtures/mine", "--out", data / "mined.jsonl")
    mined = read_pairs(data / "mined.jsonl")
    assert mined, "mining the fixture found no pairs"
    stage(synthesize.main, "--count", "40", "--out", data / "synth.jsonl", *cache)
    synth = read_pairs(data / "synth.jsonl")
    write_pairs(data / "base.jsonl", [*mined, *synth])
    stage(
        augment.main,
        "--data",
        data / "base.jsonl",
        "--out",
        data / "pairs.jsonl",
        "--factor",
        "2",
        *cache,
    )
    pairs = read_pairs(data / "pairs.jsonl")
    assert len(pairs) > len(mined) + len(synth)
    assert any(p.origin.startswith("augmented:") for p in pairs)

    # Fine-tune a few steps from scratch: the cross-entropy falls.
    run = tmp_path / "run"
    stage(
        finetune.main,
        "--config", config, "--data", data / "pairs.jsonl", "--out", run,
        "--no-progress",
    )  # fmt: skip
    records = [
        json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()
    ]
    ces = [r["ce"] for r in records if "ce" in r]
    assert ces[-1] < ces[0]

    # One reward round on top of it.
    rewarded = tmp_path / "reward"
    stage(
        reward_stage.main,
        "--config", config, "--model", run, "--data", data / "pairs.jsonl",
        "--out", rewarded, "--no-progress",
    )  # fmt: skip
    summary = json.loads((rewarded / "run.json").read_text())
    (round_0,) = summary["reward"]
    assert 0.0 <= round_0["mean_reward_before"] <= 1.0
    assert 0.0 <= round_0["mean_reward_after"] <= 1.0
    assert round_0["kept"] >= 1  # threshold 0: every prompt keeps its best

    # Evaluate on (the first pairs of) the held-out test split of mined pairs.
    report = tmp_path / "eval.json"
    stage(
        evaluate.main,
        "--data", data / "pairs.jsonl", "--split", "test", "--backends", "model",
        "--model", rewarded / "final", "--device", "cpu", "--limit", "4",
        "--out", report, *cache,
    )  # fmt: skip
    backends = json.loads(report.read_text())["backends"]
    rows = [
        json.loads(line)
        for line in report.with_suffix(".jsonl").read_text().splitlines()[1:]
    ]
    model_rows = [r for r in rows if r["backend"] == "model"]
    reference = {p.id: p.pragma for p in pairs if p.split == "test"}
    assert model_rows
    assert {r["id"] for r in model_rows} <= set(reference)
    # The experts' own pragmas score exactly 1 on every text metric.
    assert backends["reference"]["n"] == len(model_rows)
    assert backends["reference"]["exact"] == 1.0
    assert backends["reference"]["jaccard"] == 1.0
    # The model's mean Jaccard is the mean of its per-pair clause Jaccards.
    jaccards = [
        clause_jaccard(r["prediction"], reference[r["id"]])
        if r["prediction"] is not None
        else 0.0
        for r in model_rows
    ]
    assert backends["model"]["jaccard"] == pytest.approx(sum(jaccards) / len(jaccards))

    # Export, and load the folder as the server does.
    models = tmp_path / "models"
    stage(
        export.main,
        "--run", rewarded, "--name", "chain-tiny", "--out", models,
        "--report", report,
    )  # fmt: skip
    folder = models / "chain-tiny"
    card = (folder / "README.md").read_text()
    assert f"vllm serve {folder} --served-model-name chain-tiny" in card
    assert "| reference |" in card  # the metrics table
    backend = make_backend(
        BackendSettings(kind=BackendKind.TRANSFORMERS, path=str(folder), device="cpu")
    )
    assert backend is not None
    prompt = next(p for p in prompts_of(synth) if p)
    (answers,) = backend.complete([prompt], 1)
    # The backend constrains decoding to the pragma grammar and its token
    # budget: what it writes is a whole pragma of the grammar, even from a
    # tiny model that would loop inside `reduction(` until max_tokens.
    assert answers
    dfa = compile_dfa(regex_for_prompt(prompt))
    assert dfa is not None
    text = answers[0].text
    assert text.startswith("#pragma ")
    assert dfa.accepts(dfa.walk(text)), text
    assert completion_pragma(text) is not None

    # Serve a suggestion through the CLI with the exported model.
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'server'}{os.pathsep}{ROOT / 'training'}",
    }
    proc = subprocess.run(
        [
            sys.executable, "-m", "accls", "suggest", "--backend", "transformers",
            "--model-path", str(folder), "--format", "json",
            str(ROOT / "tests/fixtures/c/dot_product.c"),
        ],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    loops = json.loads(proc.stdout)
    assert any(loop["pragma"] for loop in loops)
    sources = {loop["source"] for loop in loops} | {
        alt["source"] for loop in loops for alt in loop["alternatives"]
    }
    # The model was asked: its candidates are chosen or listed as alternatives.
    assert any(s != "analysis" for s in sources), sources
