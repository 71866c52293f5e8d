"""The accls language server (pygls): documents, features and position conversion."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accls.server.app import AcclsServer, build_server

__all__ = ["AcclsServer", "build_server"]


def __getattr__(name: str) -> Any:
    # Lazy, so `accls suggest` does not pay for importing pygls.
    if name in __all__:
        from accls.server import app

        return getattr(app, name)
    raise AttributeError(name)
