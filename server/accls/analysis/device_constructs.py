"""Which pragmas are device compute constructs (their code runs on the device)."""

from __future__ import annotations

from accls.frontend import Directive

__all__ = ["runs_on_device"]

_ACC_COMPUTE = frozenset({"parallel", "kernels", "serial"})


def runs_on_device(directive: Directive) -> bool:
    """Whether the directive is a compute construct (its code runs on the device)."""
    words = set(directive.name.split())
    if directive.dialect == "acc":
        return bool(words & _ACC_COMPUTE)
    return "target" in words and not words & {"enter", "exit", "update", "data"}
