"""Model backends loaded once, and their recent failures, for one CLI run or server."""

from __future__ import annotations

import logging
import threading
import time

from accls.suggest.backends import Backend, BackendError, BackendSettings, make_backend

__all__ = ["RETRY_AFTER_S", "Answers", "BackendPool"]

log = logging.getLogger(__name__)

RETRY_AFTER_S = 30.0
"""After a backend fails, the analysis answers alone for this long (no re-dial)."""

Answers = list[list[tuple[str, float]]]
"""Per prompt, the model's completions and their scores."""


class BackendPool:
    """One backend per settings value (models load once), and which ones are down.

    The CLI makes one per run and the language server one per instance; threads
    of the server's worker pool share it.
    """

    def __init__(self, retry_after_s: float = RETRY_AFTER_S) -> None:
        self._retry_after_s = retry_after_s
        self._backends: dict[BackendSettings, Backend] = {}
        self._down: dict[BackendSettings, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def reset(self) -> None:
        """Forget loaded backends and recent failures (new settings, or tests)."""
        with self._lock:
            self._backends.clear()
            self._down.clear()

    def backend(self, settings: BackendSettings) -> Backend | None:
        """The backend of `settings`, made on first use; None for the analysis."""
        with self._lock:
            found = self._backends.get(settings)
            if found is None:
                found = make_backend(settings)
                if found is not None:
                    self._backends[settings] = found
            return found

    def ask(
        self, settings: BackendSettings, backend: Backend | None, prompts: list[str]
    ) -> tuple[Answers | None, str | None]:
        """The model's completions, or None with the warning to show.

        `backend`, when given, answers instead of the pool's own (a model the
        caller loaded); a failure still marks `settings` down for a while.
        """
        down = self._down.get(settings)
        if down is not None and time.monotonic() < down[0]:
            return None, down[1]
        try:
            backend = backend or self.backend(settings)
            if backend is None:
                return None, None
            answers = backend.complete(prompts, max(1, settings.n))
        except BackendError as exc:
            warning = f"{exc}: using the analysis alone"
        except Exception as exc:  # a model library failing must not take us down
            log.exception("model backend %s failed", settings.kind.value)
            failed = type(exc).__name__
            warning = f"model backend failed ({failed}): using the analysis alone"
        else:
            self._down.pop(settings, None)
            return [[(c.text, c.score) for c in found] for found in answers], None
        self._down[settings] = (time.monotonic() + self._retry_after_s, warning)
        return None, warning
