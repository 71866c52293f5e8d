"""`$/progress` around long operations (compile checks, model calls)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from lsprotocol import types

from accls.server.language_server import AcclsServer

__all__ = ["report"]

log = logging.getLogger(__name__)


def _supported(ls: AcclsServer) -> bool:
    window = ls.client_capabilities.window
    return bool(window is not None and window.work_done_progress)


@asynccontextmanager
async def report(ls: AcclsServer, title: str, message: str) -> AsyncIterator[None]:
    """Show a progress bar while the body runs, if the client supports it."""
    token: str | None = None
    if _supported(ls):
        token = f"accls-{uuid.uuid4()}"
        try:
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(
                token, types.WorkDoneProgressBegin(title=title, message=message)
            )
        except Exception as exc:  # the client refused the token: work without a bar
            log.info("no progress bar: %s", exc)
            token = None
    try:
        yield
    finally:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
