"""The language server with `backend=transformers`: a model pragma, validated, shown.

The model is the tests' tiny Llama, fine-tuned in the fixture until greedy
decoding answers `#pragma acc parallel loop`: a real model in the server
process, loaded through the transformers backend, constrained by the grammar.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest
from accls.suggest import SuggestOptions, prompt_for_text
from lsprotocol import types
from pytest_lsp import LanguageClient
from support.lsp import actions_at
from support.tiny_model import SNIPPETS, shared_tiny_model, train_to_answer

Need = Callable[[str], str]
Start = Callable[..., Awaitable[types.InitializeResult]]
ApplyEdits = Callable[[str, list[types.TextEdit], str], str]

ANSWER = "#pragma acc parallel loop"
# `x` and `y` may overlap: the analysis refuses the loop, so only a model
# pragma can be offered, and only once it validates.
ALIAS = dedent(
    """\
    void saxpy(int n, float s, float *x, float *y) {
        for (int i = 0; i < n; i++)
            y[i] = s * x[i] + y[i];
    }
    """
)
SCAN = dedent(
    """\
    void scan(int n, double *restrict a) {
        for (int i = 1; i < n; i++)
            a[i] = a[i - 1] + a[i];
    }
    """
)


@pytest.fixture(scope="module")
def answering_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    options = SuggestOptions()
    texts = [(ALIAS, 2), (SCAN, 2), (SNIPPETS[0], 2), (SNIPPETS[1], 3)]
    prompts = [prompt_for_text(code, line, options) for code, line in texts]
    return train_to_answer(
        shared_tiny_model(),
        tmp_path_factory.mktemp("answering") / "model",
        [p for p in prompts if p is not None],
        ANSWER,
    )


def _options(model: Path) -> dict[str, Any]:
    return {
        "backend": {
            "kind": "transformers",
            "path": str(model),
            "n": 1,
            "temperature": 0.0,
            "device": "cpu",
        }
    }


async def _actions(
    client: LanguageClient, uri: str, line: int
) -> list[types.CodeAction]:
    return await actions_at(client, uri, types.Position(line=line, character=8))


def _kind(action: types.CodeAction) -> str | None:
    data = action.data
    return str(data["kind"]) if isinstance(data, dict) else None


def _open(client: LanguageClient, text: str, path: Path) -> str:
    uri = path.resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="c", version=1, text=text
            )
        )
    )
    return uri


async def test_model_action_on_a_refused_loop_resolves_to_a_validated_model_pragma(
    raw_client: LanguageClient,
    initialize: Start,
    answering_model: Path,
    apply_edits: ApplyEdits,
    need: Need,
    tmp_path: Path,
) -> None:
    need("gcc")
    await initialize(raw_client, "visual-studio-code", _options(answering_model))
    uri = _open(raw_client, ALIAS, tmp_path / "alias.c")
    actions = await _actions(raw_client, uri, 1)
    [ask] = [
        a for a in actions if isinstance(a.data, dict) and a.data["kind"] == "model"
    ]
    assert "ask the model" in ask.title
    resolved = await raw_client.code_action_resolve_async(ask)
    assert resolved.disabled is None
    data = resolved.data
    assert isinstance(data, dict)
    assert data["source"] == "model+repaired"  # the data clauses were added
    assert data["validation"]["compiles"] is True
    assert data["validation"]["race_free"] is True
    assert data["caution"] == "assumes `y` and `x` do not alias"
    assert resolved.edit is not None
    assert resolved.edit.changes is not None
    new = apply_edits(ALIAS, list(resolved.edit.changes[uri]), "utf-16")
    assert f"    {ANSWER} copy(y[0:n]) copyin(x[0:n])\n    for (int i" in new

    hover = await raw_client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=8),
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert f"source: {data['source']}" in hover.contents.value
    assert "caution: assumes `y` and `x` do not alias" in hover.contents.value


async def test_model_pragma_over_a_proven_dependence_is_never_offered(
    raw_client: LanguageClient,
    initialize: Start,
    answering_model: Path,
    need: Need,
    tmp_path: Path,
) -> None:
    need("gcc")
    await initialize(raw_client, "visual-studio-code", _options(answering_model))
    uri = _open(raw_client, SCAN, tmp_path / "scan.c")
    actions = await _actions(raw_client, uri, 1)
    [ask] = [
        a for a in actions if isinstance(a.data, dict) and a.data["kind"] == "model"
    ]
    resolved = await raw_client.code_action_resolve_async(ask)
    assert resolved.edit is None
    assert resolved.disabled is not None
    assert "proved a dependence" in resolved.disabled.reason


async def test_unreachable_model_server_warns_once_and_the_analysis_answers(
    raw_client: LanguageClient, initialize: Start, need: Need, tmp_path: Path
) -> None:
    need("gcc")
    options = {
        "backend": {
            "kind": "vllm",
            "url": "http://127.0.0.1:9/v1",  # the discard port: nothing listens
            "connectTimeout": 0.5,
            "retries": 0,
        }
    }
    await initialize(raw_client, "visual-studio-code", options)
    text = SNIPPETS[0]
    uri = _open(raw_client, text, tmp_path / "snippet.c")
    line = next(n for n, row in enumerate(text.splitlines()) if "for (" in row)
    for _ in range(2):
        actions = await _actions(raw_client, uri, line)
        openacc = [a for a in actions if "OpenACC" in a.title]
        assert openacc
        resolved = await raw_client.code_action_resolve_async(openacc[0])
        assert resolved.edit is not None  # the analysis answered alone
    warnings = [m for m in raw_client.messages if "unreachable" in m.message]
    assert len(warnings) == 1
    assert "using the analysis alone" in warnings[0].message
    assert warnings[0].type == types.MessageType.Warning
