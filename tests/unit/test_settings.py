from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest
from accls.settings import (
    FeedbackConfig,
    Settings,
    database_include_paths,
    parse_settings,
    wire_names,
)
from accls.suggest import Dialect, Target
from accls.suggest.backends.base import BackendKind, BackendSettings
from accls.validation import CompilerSettings


def test_defaults() -> None:
    settings, problems = parse_settings(None)
    assert settings == Settings()
    assert problems == []
    assert settings.suggest_options.dialect is Dialect.OPENACC
    assert settings.suggest_options.target is Target.GPU


def test_wire_names_are_camel_case() -> None:
    settings, problems = parse_settings(
        {
            "model": "openmp",
            "target": "gpu",
            "assumeNoAlias": True,
            "backend": {
                "kind": "vllm",
                "url": "http://127.0.0.1:9000/v1",
                "maxTokens": 64,
            },
            "compiler": {"path": "clang", "flags": ["-O2", "-DX=1"]},
            "includePaths": ["/opt/inc"],
            "compileCommands": "/tmp/compile_commands.json",
            "feedback": {"enabled": True, "path": "/tmp/fb.sqlite"},
            "validate": False,
        }
    )
    assert problems == []
    assert settings.dialect is Dialect.OPENMP
    assert settings.target is Target.GPU
    assert settings.assume_no_alias
    assert settings.backend.kind is BackendKind.VLLM
    assert settings.backend.url == "http://127.0.0.1:9000/v1"
    assert settings.backend.max_tokens == 64
    assert settings.compiler == CompilerSettings(cc="clang", flags=("-O2", "-DX=1"))
    assert settings.include_paths == ("/opt/inc",)
    assert settings.compile_commands == "/tmp/compile_commands.json"
    assert settings.feedback == FeedbackConfig(True, "/tmp/fb.sqlite")
    assert not settings.validate


def test_dotted_keys_as_editors_send_them() -> None:
    settings, problems = parse_settings(
        {"backend.kind": "transformers", "backend.path": "/m", "feedback.enabled": True}
    )
    assert problems == []
    assert settings.backend.kind is BackendKind.TRANSFORMERS
    assert settings.backend.path == "/m"
    assert settings.feedback.enabled


def test_openmp_defaults_to_cpu() -> None:
    settings, _ = parse_settings({"model": "OpenMP"})
    assert settings.suggest_options.target is Target.CPU


def test_flags_as_one_string() -> None:
    settings, problems = parse_settings({"compiler": {"flags": "-O2 '-DNAME=a b'"}})
    assert problems == []
    assert settings.compiler.flags == ("-O2", "-DNAME=a b")


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ({"model": "cuda"}, "accls.model"),
        ({"target": 3}, "accls.target"),
        ({"kernels": "yes"}, "accls.kernels"),
        ({"includePaths": [1, 2]}, "accls.includePaths"),
        ({"backend": {"kind": "magic"}}, "accls.backend.kind"),
        ({"backend": {"n": -1}}, "accls.backend.n"),
        ({"backend": {"n": 1.5}}, "accls.backend.n"),
        ({"backend": "vllm"}, "accls.backend."),
        ({"compiler": {"path": ""}}, "accls.compiler.path"),
        ({"feedback": {"enabled": 1}}, "accls.feedback.enabled"),
        ({"colour": "blue"}, "accls.colour"),
    ],
)
def test_bad_values_fall_back_to_defaults(raw: dict[str, object], named: str) -> None:
    settings, problems = parse_settings(raw)
    assert len(problems) == 1
    assert problems[0].startswith(named)
    assert settings == Settings()


def test_one_bad_value_keeps_the_good_ones() -> None:
    settings, problems = parse_settings({"model": "openmp", "target": "tpu"})
    assert [p.split(":")[0] for p in problems] == ["accls.target"]
    assert settings.dialect is Dialect.OPENMP
    assert settings.target is None


def test_not_an_object() -> None:
    settings, problems = parse_settings(["model", "openmp"])
    assert settings == Settings()
    assert problems
    assert "expected an object" in problems[0]


def test_null_means_unset() -> None:
    settings, problems = parse_settings({"model": None, "backend": {"url": None}})
    assert problems == []
    assert settings == Settings()


def test_compile_commands_include_paths(tmp_path: Path) -> None:
    source = tmp_path / "src" / "k.c"
    source.parent.mkdir()
    source.write_text("int x;\n", encoding="utf-8")
    database = tmp_path / "compile_commands.json"
    database.write_text(
        json.dumps(
            [
                {
                    "directory": str(tmp_path),
                    "file": "src/other.c",
                    "arguments": ["cc", "-Inope"],
                },
                {
                    "directory": str(tmp_path),
                    "file": "src/k.c",
                    "command": "cc -Iinclude -I /abs/inc -DX -c src/k.c",
                },
            ]
        ),
        encoding="utf-8",
    )
    assert database_include_paths(str(database), str(source)) == (
        str(tmp_path / "include"),
        "/abs/inc",
    )
    assert database_include_paths(str(database), str(tmp_path / "missing.c")) == ()
    assert database_include_paths(str(tmp_path / "none.json"), str(source)) == ()


def test_every_backend_field_is_read_from_the_wire() -> None:
    raw = {
        "backend": {
            "kind": "vllm",
            "batchSize": 3,
            "chatConcurrency": 2,
            "threads": 1,
            "candidates": ["#pragma omp parallel for"],
            "maxTokens": 64,
        }
    }
    settings, problems = parse_settings(raw)
    assert problems == []
    backend = settings.backend
    assert (backend.batch_size, backend.chat_concurrency, backend.threads) == (3, 2, 1)
    assert backend.candidates == ("#pragma omp parallel for",)
    assert backend.max_tokens == 64


def test_no_field_lacks_a_wire_key() -> None:
    """A field the wire cannot set would be silently ignored by every editor."""
    for cls in (BackendSettings, Settings, FeedbackConfig):
        assert set(wire_names(cls)) == {f.name for f in fields(cls)}, cls
    # The compile check's limits and cache are not the user's to set.
    assert wire_names(CompilerSettings) == {"cc": "path", "flags": "flags"}
