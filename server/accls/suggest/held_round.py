"""What one round of `held_refusals` shares between its loops.

The kernel functions (from the nests offloaded this round), each function's
scene (its directives, its device code blanked), the file's calls by callee,
and what a caller's holds say of each kernel parameter: built once per round,
not once per loop.
"""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis import FileAnalysis
from accls.frontend import Call, Function, Loop
from accls.suggest.held_proof import Scene, scene
from accls.suggest.lifetime_uses import KernelIndex
from accls.suggest.suggestion import Suggestion

__all__ = ["HeldRound"]


class HeldRound:
    """The shared facts of one round, for one dialect's sentinel."""

    def __init__(
        self, analysis: FileAnalysis, sentinel: str, device: Sequence[Suggestion]
    ) -> None:
        self.analysis = analysis
        self.sentinel = sentinel
        self.index = KernelIndex(analysis, device, sentinel)
        self._device: dict[str, list[Loop]] = {}
        for s in device:
            self._device.setdefault(s.loop.function or "", []).append(s.loop)
        self._scenes: dict[str, Scene] = {}
        self._calls: dict[str, list[tuple[Function, Call]]] | None = None
        # (callee, parameter position, depth) -> why a caller's hold bars it.
        self.callers: dict[tuple[str, int, int], str | None] = {}

    def scene(self, fn: Function) -> Scene:
        """`fn`'s directives, with its offloaded nests and kernel calls blanked."""
        found = self._scenes.get(fn.name)
        if found is None:
            device = tuple(self._device.get(fn.name, ()))
            found = scene(self.analysis, fn, self.sentinel, device, self.index)
            self._scenes[fn.name] = found
        return found

    def calls_of(self, name: str) -> list[tuple[Function, Call]]:
        """Every call of `name` the file shows, with the function making it."""
        if self._calls is None:
            self._calls = {}
            for caller in self.analysis.source.functions:
                for call in caller.call_sites:
                    self._calls.setdefault(call.name, []).append((caller, call))
        return self._calls.get(name, [])
