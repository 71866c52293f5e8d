"""Hybrid pipeline speed: seconds per loop with the tiny model, requests per file.

    python benchmarks/hybrid_speed.py [--model DIR] [--runs N] [--loops N]

1. Per loop: `suggest_hybrid` with the transformers backend on the CPU (model
   loaded once, outside the timing) over one-loop files, compile and race
   checks included; each run renames the variables so no cache answers it.
2. Per file: a file of about `--loops` loops through the vLLM backend against
   the local OpenAI-compatible test server (a real model behind it); counts
   the POSTs to /v1/completions, which must be 1.

Without --model it builds the random tiny model of the tests (a trained one,
e.g. models/accls-tiny, gives the same shape of figures). Prints figures;
asserts nothing about time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "server"), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from accls.analysis import AnalysisOptions  # noqa: E402
from accls.hybrid import suggest_hybrid  # noqa: E402
from accls.suggest import SuggestOptions  # noqa: E402
from accls.suggest.backends import BackendKind, BackendSettings  # noqa: E402
from accls.suggest.backends.transformers_local import (  # noqa: E402
    TransformersBackend,
)
from accls.validation import CompilerSettings  # noqa: E402
from support.openai_server import serve  # noqa: E402
from support.tiny_model import shared_tiny_model  # noqa: E402
from synthetic_c import kernels_file  # noqa: E402

_KERNELS = (
    """double g{k}(double v);
double total{k}(int n, const double *restrict a{k}) {{
    double s{k} = 0.0;
    for (int i = 0; i < n; i++)
        s{k} += g{k}(a{k}[i]);
    return s{k};
}}
""",
    """void saxpy{k}(int n, float f, float *x{k}, float *y{k}) {{
    for (int i = 0; i < n; i++)
        y{k}[i] = f * x{k}[i] + y{k}[i];
}}
""",
    """double dot{k}(int n, const double *restrict a, const double *restrict b) {{
    double d{k} = 0.0;
    for (int i = 0; i < n; i++)
        d{k} += a[i] * b[i];
    return d{k};
}}
""",
)


def per_loop(model: Path, runs: int, n: int) -> dict[str, float]:
    """Median seconds of one hybrid suggestion (one loop), model time apart."""
    settings = BackendSettings(
        kind=BackendKind.TRANSFORMERS,
        path=str(model),
        n=n,
        temperature=0.8 if n > 1 else 0.0,
        max_tokens=48,
        device="cpu",
    )
    backend = TransformersBackend(settings)
    options = SuggestOptions()
    compiler = CompilerSettings(cc="gcc")
    totals: list[float] = []
    model_s: list[float] = []
    for k in range(runs + 1):
        text = _KERNELS[k % len(_KERNELS)].format(k=k)
        started = time.perf_counter()
        result = suggest_hybrid(
            text,
            f"bench{k}.c",
            options,
            AnalysisOptions(dialect="acc"),
            settings,
            compiler,
            backend=backend,
        )
        if k == 0:
            continue  # warm-up: first compile, first generate
        totals.append(time.perf_counter() - started)
        model_s.append(result.model_seconds)
    return {
        "median_s": statistics.median(totals),
        "max_s": max(totals),
        "model_median_s": statistics.median(model_s),
    }


def per_file(model: Path, loops: int) -> dict[str, float]:
    """POSTs and seconds for one file of about `loops` loops through vLLM's API."""
    local = TransformersBackend(
        BackendSettings(kind=BackendKind.TRANSFORMERS, path=str(model), batch_size=64)
    )
    lines = 40
    made = kernels_file(lines=lines, seed=1)
    while made.loops < loops:
        lines += 40
        made = kernels_file(lines=lines, seed=1)
    with serve(local) as server:
        settings = BackendSettings(
            kind=BackendKind.VLLM,
            url=server.url,
            n=2,
            temperature=0.8,
            max_tokens=32,
            read_timeout=600.0,
        )
        started = time.perf_counter()
        result = suggest_hybrid(
            made.text,
            "hundred.c",
            SuggestOptions(),
            AnalysisOptions(dialect="acc"),
            settings,
            None,
        )
        seconds = time.perf_counter() - started
        posts = len(server.posts("/v1/completions"))
        prompts = sum(len(b["prompt"]) for b in server.posts("/v1/completions"))
    return {
        "loops": made.loops,
        "prompts": prompts,
        "completions_posts": posts,
        "seconds": seconds,
        "warnings": len(result.warnings),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="", help="model directory (default: tiny)")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--loops", type=int, default=100)
    args = parser.parse_args(argv)
    model = Path(args.model) if args.model else shared_tiny_model()
    greedy = per_loop(model, args.runs, 1)
    print(
        "hybrid per loop (greedy, n=1, gcc checks): "
        f"median {greedy['median_s']:.3f} s, max {greedy['max_s']:.3f} s, "
        f"model {greedy['model_median_s']:.3f} s"
    )
    sampled = per_loop(model, args.runs, 4)
    print(
        "hybrid per loop (sampled, n=4, gcc checks): "
        f"median {sampled['median_s']:.3f} s, max {sampled['max_s']:.3f} s, "
        f"model {sampled['model_median_s']:.3f} s"
    )
    batch = per_file(model, args.loops)
    print(
        f"vllm file of {batch['loops']} loops: {batch['prompts']} prompts in "
        f"{batch['completions_posts']} POST /v1/completions, "
        f"{batch['seconds']:.1f} s end to end (CPU tiny model behind the server)"
    )
    return 0 if batch["completions_posts"] == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
