"""The in-process transformers backend and its grammar-constrained decoding."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import regex
from accls.suggest import (
    Dialect,
    SuggestOptions,
    pragma_regex,
    prompt_for_text,
)
from accls.suggest.backends import (
    BackendError,
    BackendKind,
    BackendSettings,
    StructuredOutputs,
    make_backend,
)
from accls.suggest.backends.constrained import (
    PrefixConstraint,
    TokenTable,
    regex_for_prompt,
)
from accls.suggest.backends.regex_dfa import compile_dfa
from accls.suggest.backends.transformers_local import TransformersBackend
from support.tiny_model import SNIPPETS, shared_tiny_model

OMP = SuggestOptions(dialect=Dialect.OPENMP)


@pytest.fixture(scope="module")
def backend() -> TransformersBackend:
    made = make_backend(
        BackendSettings(
            kind=BackendKind.TRANSFORMERS,
            path=str(shared_tiny_model()),
            max_tokens=32,
            device="cpu",
        )
    )
    assert isinstance(made, TransformersBackend)
    return made


ACC = SuggestOptions()


def _prompts(options: SuggestOptions = ACC) -> list[str]:
    found = [
        prompt_for_text(SNIPPETS[0], 2, options),
        prompt_for_text(SNIPPETS[1], 3, options),
        prompt_for_text(SNIPPETS[3], 2, options),
    ]
    return [p for p in found if p is not None]


def test_greedy_gives_one_constrained_candidate_per_prompt(
    backend: TransformersBackend,
) -> None:
    answers = backend.complete(_prompts(), 4)
    assert [len(found) for found in answers] == [1, 1, 1]
    pattern = pragma_regex(SuggestOptions())
    for [cand] in answers:
        assert regex.fullmatch(pattern, cand.text, partial=True), cand.text
        assert "\n" not in cand.text
        assert cand.score <= 0.0


def test_greedy_is_deterministic_and_independent_of_batching(
    backend: TransformersBackend,
) -> None:
    together = backend.complete(_prompts(), 1)
    alone = [backend.complete([p], 1)[0] for p in _prompts()]
    assert [f[0].text for f in together] == [f[0].text for f in alone]


def test_sampling_returns_n_candidates_of_the_prompts_dialect(
    backend: TransformersBackend,
) -> None:
    prompts = _prompts(OMP)
    answers = backend.generate(
        prompts,
        3,
        temperature=1.0,
        max_tokens=24,
        patterns=[regex_for_prompt(p) for p in prompts],
    )
    assert [len(found) for found in answers] == [3, 3, 3]
    for found in answers:
        for cand in found:
            assert cand.text.startswith("#pragma omp "), cand.text


def test_unconstrained_decoding_still_stops_at_the_line_end(
    backend: TransformersBackend,
) -> None:
    answers = backend.generate(
        _prompts()[:2], 2, temperature=1.0, max_tokens=24, patterns=[None, None]
    )
    assert [len(found) for found in answers] == [2, 2]
    assert all("\n" not in cand.text for found in answers for cand in found)


def test_structured_outputs_off_disables_the_grammar(tmp_path: Path) -> None:
    # Same weights, no constraint: the random model no longer writes `#pragma`.
    made = make_backend(
        BackendSettings(
            kind=BackendKind.TRANSFORMERS,
            path=str(shared_tiny_model()),
            max_tokens=8,
            structured_outputs=StructuredOutputs.OFF,
        )
    )
    assert made is not None
    texts = [c.text for found in made.complete(_prompts(), 1) for c in found]
    assert not all(t.startswith("#pragma acc") for t in texts)


def test_missing_model_directory_is_a_one_line_error(tmp_path: Path) -> None:
    settings = BackendSettings(kind=BackendKind.TRANSFORMERS, path=str(tmp_path))
    with pytest.raises(BackendError, match=r"no model at .*config\.json"):
        make_backend(settings)


def test_cuda_without_a_gpu_is_an_error() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    settings = BackendSettings(
        kind=BackendKind.TRANSFORMERS, path=str(shared_tiny_model()), device="cuda"
    )
    with pytest.raises(BackendError, match=r"no GPU"):
        make_backend(settings)


def test_dfa_agrees_with_regex_partial_matching() -> None:
    rng = random.Random(7)
    alphabet = "#pragmaccomplo ()[]:+,\nxfrsi0"
    for options in (SuggestOptions(), OMP):
        pattern = pragma_regex(options)
        dfa = compile_dfa(pattern)
        assert dfa is not None
        seeds = [
            "#pragma acc parallel loop reduction(+:s) copyin(a[0:f(n)])\n",
            "#pragma omp parallel for private(t), reduction(max:m)",
            "#pragma omp target teams distribute parallel for simd",
        ]
        for _ in range(2000):
            seed = rng.choice(seeds)
            text = seed[: rng.randint(0, len(seed))] + "".join(
                rng.choice(alphabet) for _ in range(rng.randint(0, 3))
            )
            state = dfa.walk(text)
            partial = regex.fullmatch(pattern, text, partial=True) is not None
            assert (state >= 0) == partial, text
            assert dfa.accepts(state) == (regex.fullmatch(pattern, text) is not None)


def test_patterns_outside_the_dfa_subset_fall_back_to_regex() -> None:
    pattern = r"#pragma (?=acc)acc loop"  # a look-ahead: no DFA
    assert compile_dfa(pattern) is None
    table = TokenTable(["#pragma ", "acc", " loop", "omp", "x"], frozenset({5}))
    constraint = PrefixConstraint(table)
    assert constraint.allowed(pattern, "") == (0,)
    assert constraint.allowed(pattern, "#pragma ") == (1,)
    assert constraint.allowed(pattern, "#pragma acc loop") == (5,)  # EOS only
    assert constraint.complete(pattern, "#pragma acc loop")


def test_dfa_constraint_allows_exactly_the_tokens_that_fit() -> None:
    pattern = pragma_regex(SuggestOptions())
    texts = ["#pragma acc ", "parallel", " loop", "loop", "(", " gang", "omp", "\n"]
    table = TokenTable(texts, frozenset({len(texts)}))
    constraint = PrefixConstraint(table)
    assert constraint.allowed(pattern, "") == (0,)
    assert constraint.allowed(pattern, "#pragma acc ") == (1, 3)
    # a whole pragma may end (EOS), take a clause or a newline, but not `(`
    after = constraint.allowed(pattern, "#pragma acc parallel loop")
    assert after == (5, 7, 8)


def test_token_budget_steers_the_completion_to_close_in_time() -> None:
    pattern = pragma_regex(SuggestOptions())
    texts = ["#pragma acc ", "parallel", " loop", " reduction(+:", "s", ",", ")"]
    table = TokenTable(texts, frozenset({len(texts)}))
    constraint = PrefixConstraint(table)
    open_clause = "#pragma acc parallel loop reduction(+:s"
    unbounded = constraint.allowed(pattern, open_clause)
    assert {5, 6} <= set(unbounded)  # another variable or the closing paren
    # Budget enough: the same choice as without one.
    assert constraint.allowed(pattern, open_clause, 8) == unbounded
    # One token left: only what closes the pragma.
    assert constraint.allowed(pattern, open_clause, 1) == (6,)
    # Two left: a `,` still fits (`)` after it), but not a token that opens
    # a nested parenthesis, which needs two more to close.
    two = constraint.allowed(pattern, open_clause, 2)
    assert {5, 6} <= set(two)
    assert 3 in unbounded
    assert 3 not in two
    # A whole pragma with no budget left may only end.
    assert constraint.allowed(pattern, "#pragma acc parallel loop", 1) == (7,)
    # No budget where the grammar cannot finish: no tokens are dropped.
    assert constraint.allowed(pattern, "#pragma acc parallel", 0) == (2,)
