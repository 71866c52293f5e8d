"""Per-document scheduling of analysis work, after clangd's TUScheduler.

Each document has its own queues ("lanes": whole-file checks, and interactive
work such as listing and resolving code actions), and each lane runs one job at
a time. So a pathological document holds at most one worker per lane, and a
request on another document starts at once on a free worker instead of waiting
behind it. A queued job whose document version was superseded, or whose request
the client cancelled, is dropped before it starts; a running job cannot be
interrupted (Python threads), but the analysis budget bounds it, and nobody
waits for its stale result.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcContentModified

from accls.server.documents import Document

__all__ = ["CHECKS", "INTERACTIVE", "DocumentScheduler"]

log = logging.getLogger(__name__)
T = TypeVar("T")

CHECKS = "checks"
"""The lane of whole-file checks (diagnostics)."""

INTERACTIVE = "interactive"
"""The lane of work a user waits for: listing, resolving, hover, commands."""

_LANES = 2


class DocumentScheduler:
    """Worker threads shared by all documents, one job per (document, lane)."""

    def __init__(self, busy_documents: int = 2) -> None:
        # Enough workers for every lane of `busy_documents` documents and one
        # more document besides: a small file is served beside two slow ones.
        workers = _LANES * (busy_documents + 1)
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="accls")
        self._lanes: dict[tuple[str, str], asyncio.Lock] = {}

    async def run(self, doc: Document, lane: str, work: Callable[[], T]) -> T:
        """`work` on a worker, after the lane's earlier jobs on this document.

        Raises ContentModified if the document changes before `work` starts
        or while it runs (the stale result is dropped).
        """
        changed = doc.changed  # replaced by a new event on every version
        lock = self._lanes.setdefault((doc.uri, lane), asyncio.Lock())
        await lock.acquire()  # cancelled here: the job leaves the queue
        if changed.is_set():
            lock.release()
            raise JsonRpcContentModified(f"{doc.uri} changed before the work began")
        try:
            future = asyncio.get_running_loop().run_in_executor(self._pool, work)
        except BaseException:
            lock.release()
            raise
        # The lane stays taken until the thread is done, even when nobody waits.
        future.add_done_callback(lambda _: lock.release())
        return await _until(changed, future, doc.uri)

    def forget(self, uri: str) -> None:
        """Drop the lanes of a closed document (jobs still queued keep theirs)."""
        for lane in [key for key in self._lanes if key[0] == uri]:
            if not self._lanes[lane].locked():
                del self._lanes[lane]

    def shutdown(self) -> None:
        """Stop taking work; queued jobs are cancelled."""
        self._pool.shutdown(wait=False, cancel_futures=True)


async def _until(changed: asyncio.Event, work: asyncio.Future[T], uri: str) -> T:
    """The result of `work`; ContentModified if `changed` is set first."""
    waiter: asyncio.Future[Any] = asyncio.ensure_future(changed.wait())
    try:
        done, _ = await asyncio.wait(
            [work, waiter], return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        waiter.cancel()
    if work not in done:
        raise JsonRpcContentModified(f"{uri} changed; the result is stale")
    return work.result()
