"""Server events: features connect at registration; emits call them in order."""

from __future__ import annotations

from accls.server.language_server import Events, Signal


def test_a_signal_calls_its_callbacks_in_connection_order() -> None:
    calls: list[tuple[str, str]] = []
    signal: Signal[[str]] = Signal()
    signal.connect(lambda uri: calls.append(("first", uri)))
    signal.connect(lambda uri: calls.append(("second", uri)))
    signal.emit("file:///a.c")
    assert calls == [("first", "file:///a.c"), ("second", "file:///a.c")]


def test_each_event_has_its_own_callbacks() -> None:
    events, calls = Events(), list[str]()
    events.closed.connect(calls.append)
    events.shutdown.emit()
    events.settings_changed.emit()
    assert calls == []
    events.closed.emit("file:///a.c")
    assert calls == ["file:///a.c"]
