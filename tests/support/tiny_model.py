"""A tiny randomly initialised Llama with a BPE tokenizer trained on C snippets.

It is a real transformers model (the same classes `training/` exports), only
untrained: enough to exercise loading, batching, sampling, stop strings and
constrained decoding without a download. Set ACCLS_TEST_MODEL to a model
directory (e.g. models/accls-tiny) to run the same tests on a trained one.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from accls.frontend import parse_source
from accls.suggest import Dialect, SuggestOptions, build_prompt

__all__ = ["SNIPPETS", "build_tiny_model", "shared_tiny_model"]

SNIPPETS = (
    """void saxpy(int n, float a, const float *restrict x, float *restrict y) {
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
""",
    """double dot(int n, const double *a, const double *b) {
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += a[i] * b[i];
    return sum;
}
""",
    """void scan(int n, double *a) {
    for (int i = 1; i < n; i++)
        a[i] = a[i - 1] + a[i];
}
""",
    """void mm(int n, double c[n][n], double a[n][n], double b[n][n]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double t = 0.0;
            for (int k = 0; k < n; k++)
                t += a[i][k] * b[k][j];
            c[i][j] = t;
        }
}
""",
)

_PRAGMAS = (
    "#pragma acc parallel loop copyin(x[0:n]) copy(y[0:n])",
    "#pragma acc parallel loop reduction(+:sum) copyin(a[0:n], b[0:n])",
    "#pragma omp parallel for reduction(+:sum)",
    "#pragma omp target teams distribute parallel for map(to: a[0:n])",
    "#pragma acc loop independent private(t) collapse(2) gang vector",
)


def _corpus() -> list[str]:
    texts: list[str] = []
    for snippet in SNIPPETS:
        source = parse_source(snippet)
        for loop in source.loops():
            for model in Dialect:
                texts.append(build_prompt(source, loop, SuggestOptions(dialect=model)))
    return texts + list(SNIPPETS) + list(_PRAGMAS) * 4


def build_tiny_model(out: Path, *, seed: int = 0) -> Path:
    """Train the tokenizer, build the random model, save both under `out`."""
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM

    fast: Any = transformers.PreTrainedTokenizerFast  # untyped constructor

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=512,
        min_frequency=2,
        special_tokens=["<pad>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(_corpus(), trainer=trainer)
    tokenizer = fast(
        tokenizer_object=bpe,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        clean_up_tokenization_spaces=False,
    )
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=768,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    model = LlamaForCausalLM(config)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out


_built: list[Path] = []
_lock = threading.Lock()


def shared_tiny_model() -> Path:
    """ACCLS_TEST_MODEL if set, else one tiny model per test process, built once."""
    chosen = os.environ.get("ACCLS_TEST_MODEL")
    if chosen:
        return Path(chosen)
    with _lock:
        if not _built:
            scratch = Path(tempfile.mkdtemp(prefix="accls-tiny-"))
            atexit.register(shutil.rmtree, scratch, True)
            _built.append(build_tiny_model(scratch / "model"))
        return _built[0]


def train_to_answer(
    model_dir: Path, out: Path, prompts: list[str], answer: str, steps: int = 80
) -> Path:
    """Fine-tune the tiny model until it answers `answer` to each prompt; save it.

    Completions are trained as the serving contract says: `<prompt><answer>\\n`
    then EOS. A few dozen steps on the CPU make greedy decoding deterministic,
    so end-to-end tests can expect the model's pragma.
    """
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(model_dir))
    model: Any = transformers.AutoModelForCausalLM.from_pretrained(str(model_dir))
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny matrices: more threads only contend
    rows = []
    for prompt in prompts:
        head = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        tail = tokenizer(answer + "\n", add_special_tokens=False)["input_ids"]
        ids = head + tail + [tokenizer.eos_token_id]
        labels = [-100] * len(head) + tail + [tokenizer.eos_token_id]
        rows.append((ids, labels))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for step in range(steps):
        ids, labels = rows[step % len(rows)]
        loss = model(input_ids=torch.tensor([ids]), labels=torch.tensor([labels])).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out
