"""The command line's suggestion options, and the Settings they make.

The options take their defaults from `Settings()`, so the CLI and the language
server start from the same values; `settings_from_args` builds the one object.
"""

from __future__ import annotations

import argparse
import sys

from accls.files import InputError
from accls.settings import Settings
from accls.suggest import Dialect, Gpu, Target
from accls.suggest.backends import BackendKind, BackendSettings, StructuredOutputs
from accls.validation import CompilerSettings

__all__ = [
    "add_backend_options",
    "add_build_options",
    "add_suggest_options",
    "backend_settings",
    "gpu_choice",
    "settings_from_args",
]

_DEFAULTS = Settings()


def add_suggest_options(sub: argparse.ArgumentParser) -> None:
    """The options of `suggest` and `annotate` other than the model backend's."""
    sub.add_argument(
        "--model",
        choices=[d.value for d in Dialect],
        default=_DEFAULTS.dialect.value,
        help="programming model of the pragmas (default: %(default)s)",
    )
    sub.add_argument(
        "--target",
        choices=[t.value for t in Target],
        default=_DEFAULTS.target,
        help="where loops run: cpu or gpu (default: gpu for openacc, cpu for openmp)",
    )
    sub.add_argument(
        "--kernels",
        action="store_true",
        default=_DEFAULTS.kernels,
        help="OpenACC: use `kernels loop` instead of `parallel loop`",
    )
    sub.add_argument(
        "--gpu",
        default=_DEFAULTS.gpu.value,
        metavar="|".join(g.value for g in Gpu),
        help="the GPU offloaded loops are tuned for: vector length, workers, "
        "thread limit (default: %(default)s, no tuning clauses)",
    )
    sub.add_argument(
        "--assume-no-alias",
        action="store_true",
        default=_DEFAULTS.assume_no_alias,
        help="assume pointer arguments never overlap (as if `restrict`)",
    )
    sub.add_argument(
        "--reassociate-float",
        action="store_true",
        default=_DEFAULTS.reassociate_float,
        help="reduce `float` sums in parallel although their low digits then "
        "change with the thread count (a -ffast-math build implies it)",
    )
    sub.add_argument(
        "-I",
        dest="include",
        action="append",
        default=list(_DEFAULTS.include_paths),
        metavar="DIR",
        help="where to look for headers that define macros",
    )
    add_build_options(sub)
    add_index_options(sub)
    sub.add_argument(
        "--no-validate",
        action="store_true",
        help="skip the compile check and the race re-check of each suggestion",
    )
    sub.add_argument(
        "--cc",
        default=_DEFAULTS.compiler.cc,
        help="compiler for the check: %(default)s (default), clang, nvc",
    )


def add_build_options(sub: argparse.ArgumentParser) -> None:
    """How the file is built: its preprocessor sees the headers the build sees."""
    sub.add_argument(
        "-D",
        dest="defines",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="a macro the build defines",
    )
    sub.add_argument("--std", default=None, help="the C standard the build uses (c11)")
    sub.add_argument(
        "--compile-commands",
        default=None,
        metavar="PATH",
        help="compile_commands.json (default: the nearest one above each file)",
    )
    sub.add_argument(
        "--no-preprocess",
        action="store_true",
        help="read macros from the file alone; do not run the preprocessor",
    )


def add_index_options(sub: argparse.ArgumentParser) -> None:
    """`--project`, `--no-index`, `--index-cache`: what the other files define."""
    sub.add_argument(
        "--project",
        default=None,
        metavar="DIR",
        help="the project's folder: the functions its other files define are "
        "summarised for the calls of each loop (default: the files of the "
        "compile_commands.json in use)",
    )
    sub.add_argument(
        "--no-index",
        action="store_true",
        help="analyse each file alone: do not summarise the project's other files",
    )
    sub.add_argument(
        "--index-cache",
        default=None,
        metavar="DIR",
        help="where the project index keeps its summaries (default: the user's "
        "cache folder)",
    )


def add_backend_options(sub: argparse.ArgumentParser) -> None:
    """`--backend`, `--backend-url`, `--model-path`, `-n`, `--structured-outputs`."""
    backend = _DEFAULTS.backend
    group = sub.add_argument_group("model backend")
    group.add_argument(
        "--backend",
        choices=[k.value for k in BackendKind],
        default=backend.kind.value,
        help="where extra candidates come from (default: %(default)s, no model)",
    )
    group.add_argument(
        "--backend-url",
        default=backend.url,
        metavar="URL",
        help="vllm: the OpenAI-compatible base URL (default: %(default)s)",
    )
    group.add_argument(
        "--served-model",
        default=backend.served_model,
        metavar="NAME",
        help="vllm: the served model name (default: the server's first)",
    )
    group.add_argument(
        "--model-path",
        default=backend.path,
        metavar="DIR",
        help="transformers: a local model directory (default: models/accls-tiny)",
    )
    group.add_argument(
        "-n",
        dest="candidates",
        type=int,
        default=backend.n,
        metavar="N",
        help="model candidates per loop (default: %(default)s)",
    )
    group.add_argument(
        "--temperature",
        type=float,
        default=backend.temperature,
        help="0 = greedy (default: %(default)s)",
    )
    group.add_argument(
        "--structured-outputs",
        choices=[s.value for s in StructuredOutputs],
        default=backend.structured_outputs.value,
        help="vllm: constrain decoding with `structured_outputs` (current), "
        "`guided_regex` (legacy, vLLM < 0.12) or not at all (off)",
    )
    group.add_argument(
        "--chat",
        action="store_true",
        default=backend.chat,
        help="vllm: use /v1/chat/completions",
    )


def _backend(args: argparse.Namespace) -> BackendSettings:
    return BackendSettings(
        kind=BackendKind(args.backend),
        url=args.backend_url,
        served_model=args.served_model,
        path=args.model_path,
        chat=args.chat,
        n=args.candidates,
        temperature=args.temperature,
        structured_outputs=StructuredOutputs(args.structured_outputs),
    )


def backend_settings(args: argparse.Namespace) -> BackendSettings:
    """The backend settings of the parsed arguments, for a run that calls a model."""
    if args.candidates < 1:
        raise InputError(f"-n: must be at least 1, not {args.candidates}")
    return _backend(args)


def gpu_choice(value: str) -> Gpu:
    """The GPU `--gpu` names; an unknown name is said once, then `generic`."""
    try:
        return Gpu(value.strip().lower())
    except ValueError:
        known = ", ".join(g.value for g in Gpu)
        print(
            f"accls: --gpu {value!r} names no known GPU ({known}); using generic",
            file=sys.stderr,
        )
        return Gpu.GENERIC


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The Settings of `suggest`'s or `annotate`'s parsed arguments.

    `-n` is not checked here, since a run without a model ignores it:
    `backend_settings` checks it where a model is called.
    """
    return Settings(
        dialect=Dialect(args.model),
        target=Target(args.target) if args.target else None,
        kernels=args.kernels,
        gpu=gpu_choice(args.gpu),
        assume_no_alias=args.assume_no_alias,
        reassociate_float=args.reassociate_float,
        backend=_backend(args),
        compiler=CompilerSettings(cc=args.cc),
        include_paths=tuple(args.include),
        compile_commands=args.compile_commands or "",
        preprocess=not args.no_preprocess,
        validate=not args.no_validate,
    )
