"""What a listed code action stands for; it travels in the action's `data`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from accls.suggest import Dialect, Gpu, SuggestOptions, Target

__all__ = ["ActionKey", "ActionKind"]


class ActionKind(StrEnum):
    """Kinds of resolvable code action, in listing order; `data.kind` on the wire."""

    LOOP = "loop"  # the analysis's pragma for a loop (and its inner loops)
    MODEL = "model"  # ask the model about a loop the analysis refused
    REGION = "region"  # a data region around a function's offloaded loops
    INDUCTION = "induction"  # rewrite a loop's counters in closed form, then a pragma
    RESTRICT = "restrict"  # declare pointer parameters `restrict`, then a pragma
    HOIST = "hoist"  # one OpenMP region around a sequential loop, `omp for` inside
    LIFETIME = "lifetime"  # arrays kept on the device across a function's kernel calls


@dataclass(frozen=True, slots=True)
class ActionKey:
    """What a listed action stands for; travels in the action's `data`."""

    uri: str
    version: int
    kind: ActionKind
    dialect: str  # "openacc" or "openmp" ("model" in the action's data)
    target: str
    loop: int  # the loop's id (its first loop's, for a region)
    kernels: bool = False  # OpenACC `kernels loop` (the user's setting)
    gpu: str = "generic"  # the GPU offloaded loops are tuned for (the user's setting)

    @staticmethod
    def of(
        uri: str, version: int, kind: ActionKind, options: SuggestOptions, loop: int
    ) -> ActionKey:
        """The key of a `kind` action listed for `options` on `loop`."""
        return ActionKey(
            uri,
            version,
            kind,
            options.dialect,
            options.target,
            loop,
            options.kernels,
            options.gpu.value,
        )

    @property
    def options(self) -> SuggestOptions:
        """The dialect, target and `kernels` choice the action was listed for."""
        return SuggestOptions(
            Dialect(self.dialect), Target(self.target), self.kernels, Gpu(self.gpu)
        )

    def data(self) -> dict[str, Any]:
        """The JSON object the action carries."""
        return {
            "uri": self.uri,
            "version": self.version,
            "kind": self.kind.value,
            "model": self.dialect,
            "target": self.target,
            "loop": self.loop,
            "kernels": self.kernels,
            # Only when set: the wire of a `generic` action stays as it was.
            **({"gpu": self.gpu} if self.gpu != Gpu.GENERIC else {}),
        }

    @staticmethod
    def parse(data: Any) -> ActionKey:
        """The key an action's `data` holds; InvalidParams when it is none."""
        try:
            uri, version = str(data["uri"]), int(data["version"])
            kind, dialect = str(data["kind"]), str(data["model"])
            target, loop = str(data["target"]), int(data["loop"])
            if kind not in _KINDS:
                raise ValueError(kind)
            key = ActionKey(
                uri,
                version,
                ActionKind(kind),
                dialect,
                target,
                loop,
                data.get("kernels") is True,
                str(data.get("gpu", "generic")),
            )
            key.options  # noqa: B018 - validates dialect and target
        except (KeyError, TypeError, ValueError) as exc:
            raise JsonRpcInvalidParams(f"not an accls code action: {exc}") from None
        return key


_KINDS = frozenset(kind.value for kind in ActionKind)
