"""Unit-test fixtures: a local OpenAI-compatible server in front of a tiny model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from accls.suggest.backends import BackendKind, BackendSettings
from accls.suggest.backends.transformers_local import TransformersBackend
from support.openai_server import OpenAIServer, serve
from support.tiny_model import shared_tiny_model


@pytest.fixture(scope="session")
def server() -> Iterator[OpenAIServer]:
    """The server, serving the tiny model through the transformers backend."""
    local = TransformersBackend(
        BackendSettings(kind=BackendKind.TRANSFORMERS, path=str(shared_tiny_model()))
    )
    with serve(local) as running:
        yield running


@pytest.fixture
def live(server: OpenAIServer) -> Iterator[OpenAIServer]:
    """The server with its failure knobs reset before and after a test."""
    server.reset()
    yield server
    server.reset()
