"""shutdown and exit: stop the workers and leave promptly."""

from __future__ import annotations

import logging
import os
import sys

from lsprotocol import types

from accls.server.app import AcclsServer

__all__ = ["register"]


def register(server: AcclsServer) -> None:
    """`shutdown` stops the workers; `exit` ends the process."""

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: AcclsServer, params: None) -> None:
        ls.shut_down = True
        ls.scheduler.shutdown()
        for task in list(ls.pending_diagnostics.values()):
            task.cancel()
        if ls.feedback_store is not None:
            ls.feedback_store.close()
            ls.feedback_store = None

    @server.feature(types.EXIT)
    def exit_(ls: AcclsServer, params: None) -> None:
        # A whole-file check may still be running on a worker thread, and Python
        # would wait for it at exit; nothing is left to save, so leave now.
        logging.shutdown()
        sys.stdout.flush()
        os._exit(0 if ls.shut_down else 1)
