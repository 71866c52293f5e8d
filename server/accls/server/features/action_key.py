"""What a listed code action stands for; it travels in the action's `data`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from accls.suggest import Dialect, SuggestOptions, Target

__all__ = ["KINDS", "ActionKey"]

KINDS = ("loop", "region", "model", "induction")


@dataclass(frozen=True, slots=True)
class ActionKey:
    """What a listed action stands for; travels in the action's `data`."""

    uri: str
    version: int
    # "loop", "region", "model" (ask the model about a refused loop) or
    # "induction" (rewrite a loop's counters in closed form, then parallelize)
    kind: str
    model: str
    target: str
    loop: int  # the loop's id (its first loop's, for a region)
    kernels: bool = False  # OpenACC `kernels loop` (the user's setting)

    @property
    def options(self) -> SuggestOptions:
        """The model, target and `kernels` choice the action was listed for."""
        return SuggestOptions(Dialect(self.model), Target(self.target), self.kernels)

    def data(self) -> dict[str, Any]:
        """The JSON object the action carries."""
        return {
            "uri": self.uri,
            "version": self.version,
            "kind": self.kind,
            "model": self.model,
            "target": self.target,
            "loop": self.loop,
            "kernels": self.kernels,
        }

    @staticmethod
    def parse(data: Any) -> ActionKey:
        """The key an action's `data` holds; InvalidParams when it is none."""
        try:
            key = ActionKey(
                str(data["uri"]),
                int(data["version"]),
                str(data["kind"]),
                str(data["model"]),
                str(data["target"]),
                int(data["loop"]),
                data.get("kernels") is True,
            )
            if key.kind not in KINDS:
                raise ValueError(key.kind)
            key.options  # noqa: B018 - validates model and target
        except (KeyError, TypeError, ValueError) as exc:
            raise JsonRpcInvalidParams(f"not an accls code action: {exc}") from None
        return key
