"""What kind of pragma to write."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from accls.suggest.pragma import Dialect, Target

__all__ = ["Gpu", "SuggestOptions"]


class Gpu(StrEnum):
    """The GPU an offloaded loop is tuned for: its warp or wavefront width."""

    GENERIC = "generic"  # no tuning clauses: the compiler's defaults
    NVIDIA = "nvidia"  # warps of 32 threads
    AMD = "amd"  # wavefronts of 64 threads


@dataclass(frozen=True, slots=True)
class SuggestOptions:
    """The programming model, the target and the OpenACC construct to use."""

    dialect: Dialect = Dialect.OPENACC
    target: Target = Target.GPU
    kernels: bool = False  # OpenACC `kernels loop` instead of `parallel loop`
    gpu: Gpu = Gpu.GENERIC  # the tuning of offloaded loops
    # The compile check's compiler takes a subarray in an OpenACC `private`
    # (`private(t[0:n])`, nvc does; gcc does not): heap scratch can be private.
    private_sections: bool = False
