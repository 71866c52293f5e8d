"""The vLLM backend against a local OpenAI-compatible server serving a real model."""

from __future__ import annotations

import time

import pytest
import regex
from accls.suggest import SuggestOptions, completion_pragma, prompt_for_text
from accls.suggest.backends import (
    BackendError,
    BackendKind,
    BackendSettings,
    StructuredOutputs,
    make_backend,
)
from accls.suggest.backends.constrained import regex_for_prompt
from accls.suggest.backends.vllm_http import VllmBackend
from support.openai_server import MODEL_NAME, OpenAIServer
from support.tiny_model import SNIPPETS


def _prompts() -> list[str]:
    found = [
        prompt_for_text(SNIPPETS[0], 2, SuggestOptions()),
        prompt_for_text(SNIPPETS[1], 3, SuggestOptions()),
        prompt_for_text(SNIPPETS[2], 2, SuggestOptions()),
    ]
    return [p for p in found if p is not None]


def _client(server: OpenAIServer, **kw: object) -> VllmBackend:
    given: dict[str, object] = {
        "max_tokens": 24,
        "connect_timeout": 1.0,
        "read_timeout": 30.0,  # loaded CI machines; the hang test sets its own
        **kw,
    }
    settings = BackendSettings(
        kind=BackendKind.VLLM,
        url=server.url,
        **given,  # type: ignore[arg-type]
    )
    backend = make_backend(settings)
    assert isinstance(backend, VllmBackend)
    return backend


def test_completions_are_one_batched_request_with_n_per_prompt(
    live: OpenAIServer,
) -> None:
    prompts = _prompts()
    backend = _client(live, n=3, temperature=0.9)
    answers = backend.complete(prompts, 3)
    assert len(answers) == len(prompts)
    assert all(len(found) == 3 for found in answers)
    bodies = live.posts("/v1/completions")
    assert len(bodies) == 1
    body = bodies[0]
    assert body["prompt"] == prompts
    assert body["n"] == 3
    assert body["stop"] == ["\n"]
    assert body["model"] == MODEL_NAME  # looked up from /v1/models
    assert body["max_tokens"] == 24
    assert body["structured_outputs"]["regex"] == regex_for_prompt(prompts[0])
    assert "guided_regex" not in body


def test_structured_outputs_make_every_candidate_a_pragma_prefix(
    live: OpenAIServer,
) -> None:
    # The model is random: without the grammar it would write any text at all.
    backend = _client(live, temperature=1.0)
    pattern = regex_for_prompt(_prompts()[0])
    answers = backend.complete(_prompts(), 4)
    assert [len(found) for found in answers] == [4] * len(_prompts())
    for found in answers:
        for cand in found:
            assert regex.fullmatch(pattern, cand.text, partial=True), cand.text
            assert cand.text.startswith("#pragma acc ")
            assert cand.score <= 0.0


def test_complete_candidates_parse_as_pragmas(live: OpenAIServer) -> None:
    backend = _client(live, temperature=1.0, max_tokens=64)
    pattern = regex_for_prompt(_prompts()[0])
    whole = [
        c.text
        for found in backend.complete(_prompts(), 4)
        for c in found
        if regex.fullmatch(pattern, c.text)
    ]
    assert whole, "no candidate ended within 64 tokens"
    assert all(completion_pragma(text) == " ".join(text.split()) for text in whole)


def test_legacy_field_behind_the_setting(live: OpenAIServer) -> None:
    backend = _client(live, structured_outputs=StructuredOutputs.LEGACY)
    backend.complete(_prompts()[:1], 1)
    body = live.posts("/v1/completions")[0]
    assert body["guided_regex"] == regex_for_prompt(_prompts()[0])
    assert "structured_outputs" not in body


def test_off_sends_no_grammar(live: OpenAIServer) -> None:
    backend = _client(live, structured_outputs=StructuredOutputs.OFF)
    backend.complete(_prompts()[:1], 1)
    body = live.posts("/v1/completions")[0]
    assert "guided_regex" not in body
    assert "structured_outputs" not in body


def test_server_rejecting_the_request_is_a_one_line_error(live: OpenAIServer) -> None:
    live.knobs.reject_legacy = True
    backend = _client(live, structured_outputs=StructuredOutputs.LEGACY)
    with pytest.raises(BackendError, match=r"HTTP 400") as caught:
        backend.complete(_prompts()[:1], 1)
    assert "\n" not in str(caught.value)


def test_chat_sends_one_conversation_per_prompt(live: OpenAIServer) -> None:
    prompts = _prompts()
    backend = _client(live, chat=True, temperature=0.8)
    answers = backend.complete(prompts, 2)
    assert [len(found) for found in answers] == [2] * len(prompts)
    bodies = live.posts("/v1/chat/completions")
    assert len(bodies) == len(prompts)
    sent = sorted(b["messages"][-1]["content"] for b in bodies)
    assert sent == sorted(prompts)
    assert all(b["structured_outputs"]["regex"] for b in bodies)
    for found in answers:
        assert all(c.text.startswith("#pragma acc") for c in found)


def test_retries_5xx_with_backoff_then_succeeds(live: OpenAIServer) -> None:
    live.knobs.fail_first = 2
    live.knobs.script = ["#pragma acc parallel loop"]
    backend = _client(live, retries=2)
    answers = backend.complete(_prompts()[:1], 1)
    assert answers[0][0].text == "#pragma acc parallel loop"
    assert len(live.posts("/v1/completions")) == 3


def test_5xx_beyond_the_retries_is_an_error(live: OpenAIServer) -> None:
    live.knobs.fail_first = 5
    backend = _client(live, retries=1)
    with pytest.raises(BackendError, match=r"HTTP 500 \(after 2 tries\)"):
        backend.complete(_prompts()[:1], 1)


def test_hanging_server_times_out_quickly(live: OpenAIServer) -> None:
    live.knobs.hang = True
    backend = _client(live, read_timeout=0.5, retries=3)
    started = time.monotonic()
    with pytest.raises(BackendError, match=r"did not answer within 0.5 s"):
        backend.complete(_prompts()[:1], 1)
    assert time.monotonic() - started < 3.0  # no retry after a read timeout


def test_garbage_is_an_error_not_a_crash(live: OpenAIServer) -> None:
    live.knobs.garbage = True
    with pytest.raises(BackendError, match=r"malformed JSON"):
        _client(live).complete(_prompts()[:1], 1)


def test_unreachable_server_is_an_error() -> None:
    settings = BackendSettings(
        kind=BackendKind.VLLM,
        url="http://127.0.0.1:9/v1",
        served_model="m",
        connect_timeout=0.5,
        retries=1,
    )
    backend = make_backend(settings)
    assert backend is not None
    with pytest.raises(BackendError, match=r"unreachable at http://127.0.0.1:9/v1"):
        backend.complete(_prompts()[:1], 1)
