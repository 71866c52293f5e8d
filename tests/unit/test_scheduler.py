"""Per-document scheduling: one job per document lane, stale queued work dropped."""

from __future__ import annotations

import asyncio
import threading

import pytest
from accls.server.documents import Document
from accls.server.scheduler import CHECKS, INTERACTIVE, DocumentScheduler
from pygls.exceptions import JsonRpcContentModified


def _doc(name: str) -> Document:
    return Document(f"file:///{name}.c", 1, "int x;\n", "utf-16")


def test_queued_work_on_a_superseded_version_never_runs() -> None:
    ran: list[str] = []

    def second_job() -> None:
        ran.append("second")

    async def scenario() -> BaseException | None:
        scheduler, doc, gate = DocumentScheduler(), _doc("a"), threading.Event()
        first = asyncio.ensure_future(
            scheduler.run(doc, INTERACTIVE, lambda: gate.wait(10))
        )
        second = asyncio.ensure_future(scheduler.run(doc, INTERACTIVE, second_job))
        await asyncio.sleep(0.05)
        doc.apply(2, [])  # a new version arrives while the first job runs
        gate.set()
        results = await asyncio.gather(first, second, return_exceptions=True)
        scheduler.shutdown()
        return results[1] if isinstance(results[1], BaseException) else None

    assert isinstance(asyncio.run(scenario()), JsonRpcContentModified)
    assert ran == []  # the queued job was dropped, not run


def test_a_busy_document_leaves_workers_for_another() -> None:
    async def scenario() -> str:
        scheduler, gate = DocumentScheduler(busy_documents=1), threading.Event()
        busy = _doc("busy")
        # More jobs on one document than there are workers: they queue per lane.
        jobs = [
            asyncio.ensure_future(scheduler.run(busy, lane, lambda: gate.wait(10)))
            for lane in (INTERACTIVE, CHECKS) * 4
        ]
        await asyncio.sleep(0.05)
        small = scheduler.run(_doc("small"), INTERACTIVE, lambda: "answered")
        answer = await asyncio.wait_for(small, timeout=5)
        gate.set()
        await asyncio.gather(*jobs)
        scheduler.shutdown()
        return answer

    assert asyncio.run(scenario()) == "answered"


def test_a_cancelled_request_leaves_the_queue() -> None:
    ran: list[str] = []

    def second_job() -> None:
        ran.append("second")

    async def scenario() -> None:
        scheduler, doc, gate = DocumentScheduler(), _doc("a"), threading.Event()
        first = asyncio.ensure_future(
            scheduler.run(doc, INTERACTIVE, lambda: gate.wait(10))
        )
        second = asyncio.ensure_future(scheduler.run(doc, INTERACTIVE, second_job))
        await asyncio.sleep(0.05)
        second.cancel()  # $/cancelRequest while it waits for the lane
        gate.set()
        await first
        with pytest.raises(asyncio.CancelledError):
            await second
        await asyncio.sleep(0.05)
        scheduler.shutdown()

    asyncio.run(scenario())
    assert ran == []
