"""build_server(): the accls server with each feature registered."""

from __future__ import annotations

from collections.abc import Callable

from accls.server.features import (
    code_actions,
    code_lens,
    commands,
    configuration,
    diagnostics,
    explain,
    feedback,
    hover,
    lifecycle,
    sync,
    workspace_index,
)
from accls.server.language_server import AcclsServer

__all__ = ["AcclsServer", "build_server"]

FEATURES: tuple[Callable[[AcclsServer], None], ...] = (
    sync.register,
    configuration.register,
    diagnostics.register,
    code_actions.register,
    hover.register,
    feedback.register,
    commands.register,
    explain.register,
    code_lens.register,
    lifecycle.register,
    workspace_index.register,
)
"""Each feature's register(), in the order their handlers are added."""


def build_server() -> AcclsServer:
    """The server with every feature registered."""
    server = AcclsServer()
    for register in FEATURES:
        register(server)
    return server
