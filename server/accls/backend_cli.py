"""The command line's model options: which backend, where, and how many candidates."""

from __future__ import annotations

import argparse

from accls.inputs import InputError
from accls.suggest.backends import BackendKind, BackendSettings, StructuredOutputs

__all__ = ["add_backend_options", "backend_settings"]


def add_backend_options(sub: argparse.ArgumentParser) -> None:
    """`--backend`, `--backend-url`, `--model-path`, `-n`, `--structured-outputs`."""
    group = sub.add_argument_group("model backend")
    group.add_argument(
        "--backend",
        choices=[k.value for k in BackendKind],
        default=BackendKind.ANALYSIS.value,
        help="where extra candidates come from (default: analysis, no model)",
    )
    group.add_argument(
        "--backend-url",
        default=BackendSettings().url,
        metavar="URL",
        help="vllm: the OpenAI-compatible base URL (default: %(default)s)",
    )
    group.add_argument(
        "--served-model",
        default="",
        metavar="NAME",
        help="vllm: the served model name (default: the server's first)",
    )
    group.add_argument(
        "--model-path",
        default="",
        metavar="DIR",
        help="transformers: a local model directory (default: models/accls-tiny)",
    )
    group.add_argument(
        "-n",
        dest="candidates",
        type=int,
        default=BackendSettings().n,
        metavar="N",
        help="model candidates per loop (default: %(default)s)",
    )
    group.add_argument(
        "--temperature",
        type=float,
        default=BackendSettings().temperature,
        help="0 = greedy (default: %(default)s)",
    )
    group.add_argument(
        "--structured-outputs",
        choices=[s.value for s in StructuredOutputs],
        default=StructuredOutputs.CURRENT.value,
        help="vllm: constrain decoding with `structured_outputs` (current), "
        "`guided_regex` (legacy, vLLM < 0.12) or not at all (off)",
    )
    group.add_argument(
        "--chat", action="store_true", help="vllm: use /v1/chat/completions"
    )


def backend_settings(args: argparse.Namespace) -> BackendSettings:
    """The frozen backend settings of the parsed arguments."""
    if args.candidates < 1:
        raise InputError(f"-n: must be at least 1, not {args.candidates}")
    return BackendSettings(
        kind=BackendKind(args.backend),
        url=args.backend_url,
        model=args.served_model,
        path=args.model_path,
        chat=args.chat,
        n=args.candidates,
        temperature=args.temperature,
        structured_outputs=StructuredOutputs(args.structured_outputs),
    )
