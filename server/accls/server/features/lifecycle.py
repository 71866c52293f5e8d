"""shutdown and exit: stop the workers and leave promptly."""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass

from lsprotocol import types

from accls.server.language_server import AcclsServer

__all__ = ["register"]


@dataclass(slots=True)
class _Lifecycle:
    """Whether `shutdown` came before `exit` (the exit code says so)."""

    shut_down: bool = False


def register(server: AcclsServer) -> None:
    """`shutdown` stops the workers; `exit` ends the process."""
    state = _Lifecycle()

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: AcclsServer, params: None) -> None:
        state.shut_down = True
        ls.scheduler.shutdown()
        ls.events.shutdown.emit()

    @server.feature(types.EXIT)
    def exit_(ls: AcclsServer, params: None) -> None:
        # A whole-file check may still be running on a worker thread, and Python
        # would wait for it at exit; nothing is left to save, so leave now.
        logging.shutdown()
        sys.stdout.flush()
        os._exit(0 if state.shut_down else 1)
