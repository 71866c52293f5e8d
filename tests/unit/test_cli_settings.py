"""The CLI's suggestion options build the same Settings as the language server's."""

from __future__ import annotations

import argparse

import pytest
from accls.cli.options import (
    add_backend_options,
    add_suggest_options,
    backend_settings,
    settings_from_args,
)
from accls.files import InputError
from accls.settings import Settings
from accls.suggest import Dialect, Target
from accls.suggest.backends import BackendKind, BackendSettings, StructuredOutputs
from accls.validation import CompilerSettings


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_suggest_options(parser)
    add_backend_options(parser)
    parser.add_argument("files", nargs="*")
    return parser.parse_args(argv)


def test_defaults_are_the_settings_defaults() -> None:
    assert settings_from_args(parse("k.c")) == Settings()


def test_flags_set_their_settings() -> None:
    args = parse(
        *("--model", "openmp", "--target", "gpu", "--kernels", "--assume-no-alias"),
        *("-I", "inc", "-I", "/opt/inc", "--cc", "clang", "--no-validate"),
        *("--compile-commands", "build/cc.json", "--no-preprocess"),
        *("--backend", "vllm", "--backend-url", "http://h:1/v1", "--served-model", "m"),
        *("--model-path", "/models/x", "-n", "2", "--temperature", "0.7"),
        *("--structured-outputs", "off", "--chat", "k.c"),
    )
    assert settings_from_args(args) == Settings(
        dialect=Dialect.OPENMP,
        target=Target.GPU,
        kernels=True,
        assume_no_alias=True,
        backend=BackendSettings(
            kind=BackendKind.VLLM,
            url="http://h:1/v1",
            served_model="m",
            path="/models/x",
            chat=True,
            n=2,
            temperature=0.7,
            structured_outputs=StructuredOutputs.OFF,
        ),
        compiler=CompilerSettings(cc="clang"),
        include_paths=("inc", "/opt/inc"),
        compile_commands="build/cc.json",
        preprocess=False,
        validate=False,
    )


def test_suggest_options_follow_the_model() -> None:
    options = settings_from_args(parse("--model", "openmp")).suggest_options
    assert (options.dialect, options.target) == (Dialect.OPENMP, Target.CPU)


def test_candidates_are_checked_where_a_model_is_called() -> None:
    args = parse("-n", "0", "--backend", "fake")
    assert settings_from_args(args).backend.n == 0
    with pytest.raises(InputError, match=r"^-n: must be at least 1, not 0$"):
        backend_settings(args)
    assert backend_settings(parse("-n", "3")).n == 3
