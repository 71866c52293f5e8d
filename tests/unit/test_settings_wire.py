"""The wire form of the settings (cattrs): keys, round trips and per-field fallback."""

from __future__ import annotations

from dataclasses import replace

import pytest
from accls.settings import FeedbackConfig, Settings, parse_settings, to_wire
from accls.suggest import Dialect, Target
from accls.suggest.backends import BackendKind, BackendSettings, StructuredOutputs
from accls.validation import CompilerSettings

CHANGED = Settings(
    dialect=Dialect.OPENMP,
    target=Target.GPU,
    kernels=True,
    assume_no_alias=True,
    backend=BackendSettings(
        kind=BackendKind.VLLM,
        url="http://10.0.0.1:9000/v1",
        max_tokens=12,
        temperature=0.5,
        structured_outputs=StructuredOutputs.LEGACY,
        candidates=("#pragma omp parallel for", "#pragma omp simd"),
    ),
    compiler=CompilerSettings(cc="clang", flags=("-O2", "-DX=a b")),
    include_paths=("/opt/include",),
    compile_commands="/build/compile_commands.json",
    preprocess=False,
    feedback=FeedbackConfig(enabled=True, path="/tmp/fb.sqlite"),
    validate=False,
)


@pytest.mark.parametrize("settings", [Settings(), CHANGED])
def test_round_trip(settings: Settings) -> None:
    assert parse_settings(to_wire(settings)) == (settings, [])


def test_wire_keys_are_renamed() -> None:
    wire = to_wire(CHANGED)
    assert wire["assumeNoAlias"] is True
    assert wire["includePaths"] == ["/opt/include"]
    assert wire["compileCommands"] == "/build/compile_commands.json"
    assert wire["backend"]["maxTokens"] == 12
    assert wire["backend"]["structuredOutputs"] == "legacy"
    assert wire["model"] == "openmp"
    # The compiler's wire name is `path`; its limits and cache stay off the wire.
    assert wire["compiler"] == {"path": "clang", "flags": ["-O2", "-DX=a b"]}
    assert "assume_no_alias" not in wire


def test_snake_case_keys_are_read_too() -> None:
    settings, problems = parse_settings(
        {"assume_no_alias": True, "backend": {"max_tokens": 7}}
    )
    assert problems == []
    assert settings.assume_no_alias
    assert settings.backend.max_tokens == 7


def test_only_wire_names_reach_the_compiler() -> None:
    settings, problems = parse_settings({"compiler": {"cc": "clang", "timeoutS": 1}})
    assert problems == [
        "accls.compiler.cc: unknown setting",
        "accls.compiler.timeoutS: unknown setting",
    ]
    assert settings.compiler == CompilerSettings()


def test_dotted_keys_merge_with_objects() -> None:
    settings, problems = parse_settings(
        {
            "backend": {"url": "http://h/v1"},
            "backend.kind": "fake",
            "compiler.path": "cc",
        }
    )
    assert problems == []
    assert settings.backend.url == "http://h/v1"
    assert settings.backend.kind is BackendKind.FAKE
    assert settings.compiler.cc == "cc"


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"kernels": "yes"}, "accls.kernels: expected true or false"),
        ({"compileCommands": 5}, "accls.compileCommands: expected a string"),
        ({"backend": {"n": 1.5}}, "accls.backend.n: expected a whole number"),
        ({"backend": {"retries": -1}}, "accls.backend.retries: expected a number >= 0"),
        (
            {"backend": {"temperature": "hot"}},
            "accls.backend.temperature: expected a number",
        ),
        ({"backend": {"chat": 1}}, "accls.backend.chat: expected true or false"),
        ({"model": "cuda"}, "accls.model: unknown value 'cuda'"),
        ({"target": 3}, "accls.target: unknown value 3"),
        ({"includePaths": [1]}, "accls.includePaths: expected a list of strings"),
        (
            {"backend": {"candidates": [2]}},
            "accls.backend.candidates: expected a list of strings",
        ),
        (
            {"compiler": {"flags": "'open"}},
            "accls.compiler.flags: No closing quotation",
        ),
    ],
)
def test_a_bad_value_of_each_kind_falls_back(
    raw: dict[str, object], problem: str
) -> None:
    settings, problems = parse_settings(raw)
    assert problems == [f"{problem}; using the default"]
    assert settings == Settings()


def test_a_bad_nested_value_keeps_its_neighbours() -> None:
    settings, problems = parse_settings(
        {"backend": {"kind": "vllm", "n": -2, "maxTokens": 8}, "feedback": {"x": 1}}
    )
    assert problems == [
        "accls.backend.n: expected a number >= 0; using the default",
        "accls.feedback.x: unknown setting",
    ]
    assert settings.backend == BackendSettings(kind=BackendKind.VLLM, max_tokens=8)


def test_problems_list_this_level_before_nested_objects() -> None:
    _, problems = parse_settings(
        {"backend": {"kind": "magic"}, "model": "cuda", "colour": "blue"}
    )
    assert [p.split(":")[0] for p in problems] == [
        "accls.model",
        "accls.colour",
        "accls.backend.kind",
    ]


def test_a_nested_setting_that_is_not_an_object() -> None:
    settings, problems = parse_settings({"feedback": True})
    assert problems == ["accls.feedback.: expected an object"]
    assert settings == Settings()


def test_case_of_choices_is_ignored() -> None:
    settings, problems = parse_settings({"model": "OpenMP", "backend.kind": "VLLM"})
    assert problems == []
    assert settings == replace(
        Settings(),
        dialect=Dialect.OPENMP,
        backend=BackendSettings(kind=BackendKind.VLLM),
    )


def test_a_blank_compiler_path_means_gcc() -> None:
    settings, problems = parse_settings({"compiler": {"path": "  ", "flags": ["-g"]}})
    assert problems == ["accls.compiler.path: empty; using gcc"]
    assert settings.compiler == CompilerSettings(cc="gcc", flags=("-g",))
