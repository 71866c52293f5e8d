"""The one pipeline: suggest_text and check_text, and that every caller reaches it."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from textwrap import dedent
from typing import Any

import accls.cli
import accls.cli.check_command
import accls.cli.commands
import accls.cli.suggest_commands
import accls.pipeline.suggesting
import accls.server.features.diagnostics
import accls.server.suggestions
import accls_train.predict
import accls_train.scoring
import accls_train.synthesize
import accls_train.validate
import pytest
from accls.analysis import AnalysisOptions, analyze
from accls.analysis.checks import check_file
from accls.frontend import parse_source
from accls.frontend.incremental import IncrementalTree
from accls.hybrid import BackendPool
from accls.pipeline import (
    OnceSink,
    analysis_options,
    check_text,
    compiler_settings,
    suggest_text,
)
from accls.settings import Settings
from accls.suggest import (
    Dialect,
    Source,
    SuggestOptions,
    Target,
    parse_pragma,
    suggest_file,
)
from accls.suggest.backends import BackendKind, BackendSettings
from accls.validation import CompilerSettings, Validation, apply_validation
from accls.validation.race_check import race_check
from accls_train.dataset import Pair
from accls_train.templates import TEMPLATES, Names

Need = Callable[[str], str]

OMP = Settings(dialect=Dialect.OPENMP, validate=False)

SUM = dedent(
    """\
    double dot(int n, const double *restrict a, const double *restrict b) {
        double sum = 0.0;
        for (int i = 0; i < n; i++)
            sum += a[i] * b[i];
        return sum;
    }
    """
)

NEST = dedent(
    """\
    void scale(int n, int m, double a[n][m]) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++)
                a[i][j] *= 2.0;
    }
    """
)

CHECKED = dedent(
    """\
    void f(int n, double *a, double *s) {
        double t = 0;
        #pragma omp parallel for
        for (int i = 0; i < n; i++) {
            t = a[i];
            s[0] += t;
        }
    }
    """
)


def _rendered(found: tuple[Any, ...]) -> list[str | None]:
    return [s.pragma.render() if s.pragma else None for s in found]


def test_analysis_alone_matches_suggest_file_without_validation() -> None:
    result = suggest_text(SUM, "t.c", OMP)
    analysis = analyze(parse_source(SUM, "t.c"), AnalysisOptions(dialect="omp"))
    expected = suggest_file(analysis, SuggestOptions(Dialect.OPENMP, Target.CPU))
    assert _rendered(result.suggestions) == _rendered(expected)
    assert _rendered(result.suggestions) == [
        "#pragma omp parallel for reduction(+:sum)"
    ]
    assert result.validation == {}
    assert result.warnings == ()
    assert result.suggestions[0].source is Source.ANALYSIS


def test_options_override_the_settings() -> None:
    acc = SuggestOptions(Dialect.OPENACC, Target.GPU)
    result = suggest_text(SUM, "t.c", OMP, options=acc)
    [found] = result.suggestions
    assert found.pragma is not None
    assert found.pragma.render().startswith("#pragma acc parallel loop")


def test_compile_check_gives_a_typed_validation(need: Need) -> None:
    need("gcc")
    result = suggest_text(SUM, "t.c", replace(OMP, validate=True))
    [found] = result.suggestions
    checked = result.validation[found.loop.id]
    assert isinstance(checked, Validation)
    assert checked.compiles is True
    assert checked.race_free is True
    assert list(checked.as_json()) == ["compiles", "race_free", "checks"]
    assert checked.as_json()["checks"] == list(checked.checks)


def test_missing_compiler_warns_through_the_sink_once_per_run() -> None:
    said: list[str] = []
    sink = OnceSink(said.append)
    settings = replace(
        OMP, validate=True, compiler=CompilerSettings(cc="no-such-cc-accls")
    )
    for _ in range(2):
        result = suggest_text(SUM, "t.c", settings, warnings=sink)
        [found] = result.suggestions
        assert result.validation[found.loop.id].compiles is None
    assert said == [
        "compiler 'no-such-cc-accls' not found; suggestions are unverified "
        '("compiles": null)'
    ]


def test_listed_suggestions_are_checked_in_their_order(need: Need) -> None:
    need("gcc")
    two = SUM + NEST
    listed = suggest_text(two, "t.c", OMP, regions=False).suggestions[::-1]
    assert len(listed) == 2
    result = suggest_text(two, "t.c", replace(OMP, validate=True), listed=listed)
    assert [s.loop.id for s in result.suggestions] == [s.loop.id for s in listed]
    assert set(result.validation) == {s.loop.id for s in listed}


def test_loops_limit_the_work_to_a_loop_and_its_inner_loops() -> None:
    two = SUM + NEST
    every = suggest_text(two, "t.c", OMP).suggestions
    outer = next(s for s in every if s.loop.function == "scale" and not s.inner)
    chosen = suggest_text(two, "t.c", OMP, loops=frozenset({outer.loop.id}))
    assert {s.loop.function for s in chosen.suggestions} == {"scale"}


def test_every_loop_accounts_for_the_collapsed_inner_loop() -> None:
    # Four rows: too few for the threads, so the CPU pragma collapses the nest.
    short = NEST.replace("i < n", "i < 4").replace("a[n][m]", "a[4][m]")
    assert len(suggest_text(short, "t.c", OMP).suggestions) == 1
    every = suggest_text(short, "t.c", OMP, every_loop=True).suggestions
    assert len(every) == 2
    assert every[1].collapsed_into == every[0].loop.id
    assert suggest_text(short, "t.c", OMP).unread == ()


def test_model_backend_goes_through_the_hybrid(need: Need) -> None:
    need("gcc")
    backend = BackendSettings(
        kind=BackendKind.FAKE, candidates=("#pragma omp parallel for",), n=1
    )
    settings = replace(OMP, validate=True, backend=backend)
    result = suggest_text(SUM, "t.c", settings, backends=BackendPool())
    [found] = result.suggestions
    # The analysis' pragma wins; the model's (repaired into the same) is listed.
    assert found.source is Source.ANALYSIS
    assert result.prompts == 1
    assert [a.source for a in found.alternatives] == [Source.REPAIRED]
    assert result.alternatives[found.loop.id] == found.alternatives


def test_a_failing_backend_warns_and_rests_in_its_pool() -> None:
    said: list[str] = []
    backend = BackendSettings(kind=BackendKind.VLLM, url="http://127.0.0.1:9/v1")
    settings = replace(OMP, backend=backend)
    pool = BackendPool()
    first = suggest_text(SUM, "t.c", settings, backends=pool, warnings=said.append)
    again = suggest_text(SUM, "t.c", settings, backends=pool, warnings=said.append)
    assert first.warnings == again.warnings
    assert len(said) == 2
    assert said[0].endswith("using the analysis alone")
    assert _rendered(again.suggestions) == ["#pragma omp parallel for reduction(+:sum)"]


def test_withdrawn_is_a_typed_field_and_the_reason_text_stays() -> None:
    (good,) = suggest_text(SUM, "dot.c", OMP).suggestions
    bad = replace(good, pragma=parse_pragma("#pragma omp parallel for"))
    races = race_check(SUM, "dot.c", (bad,), "omp")
    (kept,), validation = apply_validation((bad,), {}, races)
    assert kept.pragma is None
    assert kept.withdrawn is not None
    assert kept.withdrawn.startswith("the race check reports ")
    assert kept.reasons[-1] == f"not offered: {kept.withdrawn}"
    assert validation[bad.loop.id].race_free is False


def test_sources_compare_and_dump_as_their_strings() -> None:
    assert Source("model+repaired") is Source.REPAIRED
    assert f"{Source.REPAIRED}" == "model+repaired"
    assert json.dumps([Source.ANALYSIS, Source.MODEL]) == '["analysis", "model"]'


def test_settings_build_the_options_and_the_compiler() -> None:
    settings = Settings(
        dialect=Dialect.OPENMP,
        assume_no_alias=True,
        compiler=CompilerSettings(cc="clang", flags=("-O1",)),
    )
    assert analysis_options(settings) == AnalysisOptions(True, "omp")
    compiler = compiler_settings(settings, ("inc",))
    assert (compiler.cc, compiler.flags, compiler.include_dirs) == (
        "clang",
        ("-O1",),
        ("inc",),
    )


def test_check_text_is_the_one_order() -> None:
    found = check_text(CHECKED, "t.c")
    assert found
    assert found == check_file(CHECKED, "t.c")
    keys = [(f.span.start_byte, f.code, f.message) for f in found]
    assert keys == sorted(set(keys))


def test_check_text_reuses_an_incremental_tree() -> None:
    tree = IncrementalTree(CHECKED.encode("utf-8"))
    assert check_text(CHECKED, "t.c", tree=tree) == check_text(CHECKED, "t.c")


def test_race_check_does_not_import_the_cli_check() -> None:
    code = "import sys, accls.validation.race_check; print('accls.cli' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


# Every caller reaches the pipeline: a spy stands in for the entry point.


class _Spy:
    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.real(*args, **kwargs)


def _spy(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> _Spy:
    spy = _Spy(getattr(module, name))
    monkeypatch.setattr(module, name, spy)
    return spy


def test_the_cli_suggests_and_checks_through_the_pipeline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = tmp_path / "dot.c"
    source.write_text(SUM, encoding="utf-8")
    suggest = _spy(monkeypatch, accls.cli.suggest_commands, "suggest_text")
    check = _spy(monkeypatch, accls.cli.check_command, "check_text")
    assert accls.cli.commands.main(["suggest", "--no-validate", str(source)]) == 0
    assert accls.cli.commands.main(["annotate", "--no-validate", str(source)]) == 0
    assert accls.cli.commands.main(["check", str(source)]) == 0
    assert (suggest.calls, check.calls) == (2, 1)


def test_the_server_resolves_and_checks_through_the_pipeline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    suggest = _spy(monkeypatch, accls.server.suggestions, "suggest_text")
    check = _spy(monkeypatch, accls.server.features.diagnostics, "check_text")
    chosen = suggest_text(SUM, "t.c", OMP).suggestions
    checked = accls.server.suggestions.resolved(SUM, "t.c", chosen, OMP, ())
    assert checked.withdrawn is None
    assert checked.validation_json(chosen[0].loop.id) == {}
    tree = IncrementalTree(CHECKED.encode("utf-8"))
    found = accls.server.features.diagnostics._check(CHECKED, "t.c", (), tree, None)
    assert found == check_text(CHECKED, "t.c")
    assert (suggest.calls, check.calls) == (1, 1)


def test_training_labels_and_rewards_through_the_pipeline(
    monkeypatch: pytest.MonkeyPatch, need: Need
) -> None:
    need("gcc")
    predict = _spy(monkeypatch, accls_train.predict, "suggest_text")
    label = _spy(monkeypatch, accls_train.synthesize, "suggest_text")
    validate = _spy(monkeypatch, accls_train.validate, "check_text")
    reward = _spy(monkeypatch, accls_train.scoring, "check_text")
    pair = Pair(
        id="t",
        repo="r",
        path="t.c",
        line=3,
        model="openmp",
        target="cpu",
        pragma="#pragma omp parallel for reduction(+:sum)",
        mcu=SUM,
        loop="",
    )
    assert accls_train.predict.analysis_prediction(pair) == pair.pragma
    rng = random.Random(0)
    kernel = TEMPLATES["histogram"](rng, Names(rng))
    (labelled,) = accls_train.synthesize.label_kernel(kernel, "openmp", "cpu", 0)
    assert "#pragma omp atomic" in labelled.mcu
    assert accls_train.validate.Validator().race_free(SUM, 2)
    assert accls_train.scoring.reward_parts(pair, pair.pragma).race_free == 1.0
    assert (predict.calls, label.calls, validate.calls, reward.calls) == (1, 1, 1, 1)
