"""What kind of pragma to write."""

from __future__ import annotations

from dataclasses import dataclass

from accls.suggest.pragma import Dialect, Target

__all__ = ["SuggestOptions"]


@dataclass(frozen=True, slots=True)
class SuggestOptions:
    """The programming model, the target and the OpenACC construct to use."""

    dialect: Dialect = Dialect.OPENACC
    target: Target = Target.GPU
    kernels: bool = False  # OpenACC `kernels loop` instead of `parallel loop`
