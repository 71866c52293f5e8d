"""Heap scratch buffers: when a private copy can be spelled, and why not otherwise."""

from __future__ import annotations

from accls.suggest.pragma import Dialect

__all__ = ["SUBARRAY_PRIVATE_COMPILERS", "heap_private_blocker"]

SUBARRAY_PRIVATE_COMPILERS = ("nvc", "nvc++", "pgcc", "pgc++")
"""Compilers (by name prefix) that take `private(t[0:n])` in OpenACC; gcc does not."""


def heap_private_blocker(blocks: tuple[tuple[str, str], ...], dialect: Dialect) -> str:
    """The refusal for scratch heap blocks `(pointer, count)` with no spelling.

    OpenMP's `private(t)` copies the pointer, not the block it points to, so
    every thread would still share one buffer, and accls does not move the
    user's allocation. OpenACC's `private(t[0:n])` copies the block, but only
    some compilers take a subarray there.
    """
    names = ", ".join(f"`{name}`" for name, _ in blocks)
    first, count = blocks[0]
    head = (
        f"{names}: every iteration fills its heap buffer before reading it, but "
        "all iterations share that one buffer"
    )
    if dialect is Dialect.OPENACC:
        return (
            f"{head}: `private({first}[0:{count}])` gives each gang its own, and "
            "the compile check's compiler does not take a subarray in `private` "
            "(nvc does; gcc does not)"
        )
    return (
        f"{head} (`private({first})` copies only the pointer): allocate one per "
        "thread inside a `#pragma omp parallel` region around the loop, with "
        "`#pragma omp for` on the loop"
    )
